import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// The 64-bit DCT perceptual hash, against `imagehash.phash` and against itself.
@Suite("Analysis: perceptual hash", .offThePool) struct PerceptualHashAnalysisTests {
    /// Our hash of each image is within a few bits of imagehash's (which resizes the whole
    /// image; ours starts from the 100-pixel thumbnail).
    @Test func isCloseToImagehash() async throws {
        let files = AnalysisImages.opaque
        let answers = try await AnalysisReference.answers(files.map { .perceptualHash($0) })
        var report: [String] = []
        for (file, answer) in zip(files, answers) {
            let reference = try PerceptualHash(hexString: try #require(answer?.hash))
            let ours = try AnalysisImages.analysis(file).perceptualHash
            report.append("\(file): ours \(ours), imagehash \(reference), \(ours.distance(to: reference)) bits apart")
            #expect(ours.distance(to: reference) <= 8, "\(file): ours \(ours), imagehash \(reference)")
        }
        print(report.joined(separator: "\n"))
    }

    /// Recompressed (JPEG at quality 0.5, WebP at 0.6) and scaled (to a half and a quarter),
    /// an image keeps its hash within 8 bits.
    @Test(arguments: ["photos/rocket.jpg", "photos/astronaut.png", "photos/motorcycle_left.png", "photos/retina.jpg",
                      "sdwebimage/TestImageStatic.webp", "libjpeg-turbo/testorig.jpg"])
    func survivesRecompressionAndScaling(file: String) throws {
        let image = try TestImages.decoded(try TestImages.data(file))
        let original = try ImageAnalysis(image: image).perceptualHash
        var variants: [(String, WebImage.Image)] = []
        for (format, quality) in [(ImageFormat.jpeg, 0.5), (.webP, 0.6)] {
            var options = ImageCoderOptions()
            options.encodeCompressionQuality = quality
            let data = try ImageCodersManager.shared.encode(image, format: format, options: options)
            variants.append(("\(format) \(quality)", try TestImages.decoded(data)))
        }
        for factor in [2.0, 4.0] {
            let size = CGSize(width: Double(image.pixelWidth) / factor, height: Double(image.pixelHeight) / factor)
            let scaled = try #require(ResizingTransformer(size: size, scaleMode: .aspectFit).transformedImage(with: image, forKey: ""))
            variants.append(("1/\(Int(factor))", scaled))
        }
        for (name, variant) in variants {
            let hash = try ImageAnalysis(image: variant).perceptualHash
            #expect(hash.distance(to: original) <= 8, "\(file) \(name): \(hash) against \(original)")
        }
        // Through the shrink-on-load decode of the bytes too.
        #expect(try AnalysisImages.analysis(file).perceptualHash.distance(to: original) <= 8)
    }

    /// Different pictures are at least 16 bits apart, every pair of the set.
    @Test func differentImagesAreFarApart() throws {
        let hashes = try AnalysisImages.opaque.map { ($0, try AnalysisImages.analysis($0).perceptualHash) }
        var closest = (64, "")
        for (index, (file, hash)) in hashes.enumerated() {
            for (other, otherHash) in hashes[(index + 1)...] {
                let distance = hash.distance(to: otherHash)
                if distance < closest.0 { closest = (distance, "\(file) and \(other)") }
                #expect(distance >= 16, "\(file) and \(other): \(distance) bits")
            }
        }
        print("closest pair: \(closest.1), \(closest.0) bits")
    }

    /// The EXIF orientation test set is one picture stored eight ways: upright, the same hash
    /// within 8 bits.
    @Test func theOrientationsOfOnePictureHashAlike() throws {
        let files = try TestImages.files(in: "exif-orientation")
        #expect(files.count == 9)
        let first = try AnalysisImages.analysis(try #require(files.first)).perceptualHash
        for file in files.dropFirst() {
            let hash = try AnalysisImages.analysis(file).perceptualHash
            #expect(hash.distance(to: first) <= 8, "\(file): \(hash) against \(first)")
        }
    }

    @Test func hexStringsRoundTripAndMalformedOnesAreRefused() throws {
        for value: UInt64 in [0, 1, 0x8000_0000_0000_0000, .max, 0x0123_4567_89AB_CDEF] {
            let hash = PerceptualHash(value: value)
            let parsed = try PerceptualHash(hexString: hash.hexString)
            #expect(hash.hexString.count == 16 && parsed == hash)
        }
        #expect(try PerceptualHash(hexString: "FFFFFFFFFFFFFFFF").value == .max)
        for text in ["", "0", "123456789abcdef", "123456789abcdef01", "g123456789abcdef", "+123456789abcdef", "-123456789abcdef",
                     " 123456789abcdef", "0x23456789abcdef", "12345678\u{E9}bcdef", "\u{1F600}23456789abcd"] {
            #expect(throws: ImageAnalysisError.self, "\(text)") { try PerceptualHash(hexString: text) }
        }
        #expect(PerceptualHash(value: 0b1011).distance(to: PerceptualHash(value: 0b0110)) == 3)
        #expect(PerceptualHash(value: 0).distance(to: PerceptualHash(value: .max)) == 64)
    }
}
