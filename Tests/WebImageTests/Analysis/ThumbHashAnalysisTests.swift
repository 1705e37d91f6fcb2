import Foundation
import Testing
@testable import WebImage
import WebImageTestServer
import WebImageTestSupport

/// ThumbHash against its reference (Evan Wallace's algorithm, PyPI's `thumbhash-python`), and
/// on hostile input.
@Suite("Analysis: ThumbHash", .offThePool) struct ThumbHashAnalysisTests {
    /// Our hash of each image and the reference's own hash of the file, both decoded by the
    /// reference decoder: within a mean of 8/255 of each other, alpha included, on opaque and
    /// transparent images.
    @Test func decodesLikeTheReferencesOwnHash() async throws {
        let files = AnalysisImages.opaque + AnalysisImages.transparent
        let ours = try files.map { try AnalysisImages.analysis($0).thumbHash }
        let answers = try await AnalysisReference.answers(zip(files, ours).map { .thumbHash($0, ours: $1) })
        var report: [String] = []
        for (file, (hash, answer)) in zip(files, zip(ours, answers)) {
            let answer = try #require(answer)
            let (mine, theirs) = (try #require(answer.oursDecodedRGBA), try #require(answer.referenceDecodedRGBA))
            #expect(mine.width == theirs.width && mine.height == theirs.height, "\(file): \(mine.width)x\(mine.height), reference \(theirs.width)x\(theirs.height)")
            let difference = AnalysisReference.meanDifference(mine.rgba, theirs.rgba)
            report.append("\(file): ours \(hash.base64), reference \(answer.reference ?? "?"), mean difference \(String(format: "%.2f", difference))/255")
            #expect(difference <= 8, "\(file): \(difference)/255")
            #expect(hash.hasAlpha == AnalysisImages.transparent.contains(file), "\(file)")
        }
        print(report.joined(separator: "\n"))
    }

    /// Our decoder paints what the reference decoder paints from the same hash, at its size
    /// (within a level; the reference's size for a portrait hash is from its clamped
    /// component counts, so only landscape and square hashes are compared).
    @Test func ourDecoderMatchesTheReferenceDecoder() async throws {
        let files = AnalysisImages.opaque.prefix(6) + AnalysisImages.transparent.prefix(2)
        let hashes = try files.map { try AnalysisImages.analysis($0).thumbHash }
        let answers = try await AnalysisReference.answers(zip(files, hashes).map { .thumbHash($0, ours: $1) })
        var compared = 0
        for (file, (hash, answer)) in zip(files, zip(hashes, answers)) {
            let reference = try #require(answer?.oursDecodedRGBA)
            let placeholder = Image(thumbHash: hash)
            guard placeholder.pixelWidth == reference.width, placeholder.pixelHeight == reference.height else { continue }
            compared += 1
            let ours = try AnalysisImages.rgba(placeholder)
            let largest = zip(ours, reference.rgba).map { abs(Int($0) - Int($1)) }.max() ?? .max
            #expect(largest <= 1, "\(file): \(largest)")
            #expect(placeholder.hasAlpha == hash.hasAlpha)
        }
        #expect(compared >= 6)
    }

    /// Encode, decode, encode again: the second hash paints what the first paints; the bytes,
    /// base 64 and the average colour survive the trip.
    @Test(arguments: ["photos/rocket.jpg", "sdwebimage/TestImage.png", "webp/lossy_alpha1.webp"])
    func roundTrips(file: String) throws {
        let hash = try AnalysisImages.analysis(file).thumbHash
        #expect(try ThumbHash(hash.data) == hash && ThumbHash(base64: hash.base64) == hash)
        let placeholder = Image(thumbHash: hash)
        #expect(max(placeholder.pixelWidth, placeholder.pixelHeight) == 32)
        let again = try ImageAnalysis(image: placeholder).thumbHash
        let first = try AnalysisImages.rgba(Image(thumbHash: hash))
        let second = try AnalysisImages.rgba(Image(thumbHash: again))
        #expect(first.count == second.count && AnalysisReference.meanDifference(first, second) <= 4, "\(hash.base64) then \(again.base64)")
        #expect(hash.averageColor.distance(to: again.averageColor) <= 8)
    }

    /// The aspect ratio it keeps: a wide image gives a wide placeholder, a tall one a tall one.
    @Test func keepsTheAspectRatio() throws {
        let wide = try ImageAnalysis(image: try AnalysisImages.image(width: 90, height: 30) { x, _ in RGBA8(red: UInt8(x), green: 80, blue: 160) }).thumbHash
        let tall = try ImageAnalysis(image: try AnalysisImages.image(width: 30, height: 90) { _, y in RGBA8(red: UInt8(y), green: 80, blue: 160) }).thumbHash
        #expect(wide.isLandscape && !tall.isLandscape)
        let (w, t) = (Image(thumbHash: wide), Image(thumbHash: tall))
        #expect(w.pixelWidth == 32 && w.pixelHeight < 16 && t.pixelHeight == 32 && t.pixelWidth < 16, "\(w.pixelWidth)x\(w.pixelHeight), \(t.pixelWidth)x\(t.pixelHeight)")
    }

    /// Bytes that are not a ThumbHash give `invalidThumbHash`: too short for the header, for
    /// its alpha byte, for the coefficients its header announces; base 64 that is not.
    @Test func malformedHashesAreRefused() throws {
        let valid = try AnalysisImages.analysis("sdwebimage/TestImage.png").thumbHash.data
        var malformed: [Data] = [Data(), Data([1]), Data([1, 2, 3, 4]), valid.prefix(5), valid.dropLast(), valid.prefix(valid.count / 2)]
        malformed.append(Data([0, 0, 0x80, 0, 0]))  // alpha announced, no alpha byte
        malformed.append(Data([0, 0, 0, 7, 0, 0]))  // 7x7 luminance components, one byte of them
        for data in malformed {
            #expect(throws: ImageAnalysisError.self, "\([UInt8](data))") { try ThumbHash(data) }
            #expect(throws: ImageAnalysisError.self) { try Image(thumbHash: data) }
        }
        for text in ["", "not base64!", "AAAA", "\u{1F600}"] {
            #expect(throws: ImageAnalysisError.self, "\(text)") { try ThumbHash(base64: text) }
        }
    }

    /// Random bytes of every length: parsed or refused, and those parsed paint, whatever their
    /// header says (no components on a side included).
    @Test func randomBytesParseOrAreRefused() throws {
        var generator = SeededGenerator(seed: 0x7_4A54)
        var parsed = 0
        for _ in 0..<400 {
            let bytes = (0..<Int.random(in: 0...40, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            guard let hash = try? ThumbHash(Data(bytes)) else { continue }
            parsed += 1
            let image = Image(thumbHash: hash)
            #expect((1...32).contains(image.pixelWidth) && (1...32).contains(image.pixelHeight))
            _ = hash.averageColor
        }
        #expect(parsed > 50)
    }
}
