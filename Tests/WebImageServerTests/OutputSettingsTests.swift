import Foundation
import Testing
import WebImage
import WebImageTestServer
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

/// imgproxy's compression settings (`JPEG_PROGRESSIVE`, `PNG_INTERLACED`, `PNG_QUANTIZE`, the
/// efforts) and the options `strip_color_profile`, `keep_copyright`, `enforce_thumbnail`, over
/// HTTP: each seen in the result's bytes.
@Suite(.offThePool) struct OutputSettingsTests {
    /// A server reading `local:///` from Tests/Images (or `root`), with `configure` applied.
    static func configuration(
        root: String = TestServer.imagesFolder.path, _ configure: (inout ImageServerConfiguration) -> Void = { _ in }
    ) -> ImageServerConfiguration {
        .underTest { configuration in
            configuration.localFilesystemRoot = root
            configure(&configuration)
        }
    }

    @Test func jpegProgressiveWritesAnSOF2Frame() async throws {
        let path = "/_/rs:fit:200:200/plain/local:///photos/rocket.jpg@jpg"
        let baseline = try await withRunningServer(Self.configuration()) { try await $0.get(path) }
        let progressive = try await withRunningServer(Self.configuration { $0.processing.jpegProgressive = true }) { try await $0.get(path) }
        #expect(baseline.status == 200 && progressive.status == 200)
        #expect(JPEGMarkers.frameMarker(of: baseline.body) == 0xC0)
        #expect(JPEGMarkers.frameMarker(of: progressive.body) == 0xC2)
        #expect(progressive.header("ETag") != baseline.header("ETag"))
    }

    @Test func pngInterlacedWritesAdam7AndQuantizeAPalette() async throws {
        let path = "/_/rs:fit:200:200/plain/local:///sdwebimage/TestImage.png@png"
        let plain = try await withRunningServer(Self.configuration()) { try await $0.get(path) }
        let interlaced = try await withRunningServer(Self.configuration { $0.processing.pngInterlaced = true }) { try await $0.get(path) }
        let palette = try await withRunningServer(Self.configuration {
            $0.processing.pngQuantize = true
            $0.processing.pngQuantizationColors = 16
        }) { try await $0.get(path) }
        let plainHeader = try #require(PNGHeader(plain.body))
        let interlacedHeader = try #require(PNGHeader(interlaced.body))
        let paletteHeader = try #require(PNGHeader(palette.body))
        #expect(plainHeader.interlace == 0 && plainHeader.colorType == 6)
        #expect(interlacedHeader.interlace == 1)
        #expect(paletteHeader.colorType == 3 && paletteHeader.bitDepth == 4)
        let colors = try #require(paletteHeader.paletteCount)
        #expect(colors > 2 && colors <= 16)
        #expect(palette.body.count < plain.body.count)
        #expect(Set([plain, interlaced, palette].compactMap { $0.header("ETag") }).count == 3)
    }

    @Test func webPEffortAndAVIFSpeedChangeTheBytesAndTheKey() async throws {
        let webP = "/_/rs:fit:300:300/plain/local:///photos/rocket.jpg@webp"
        let avif = "/_/rs:fit:300:300/plain/local:///photos/rocket.jpg@avif"
        let (defaultWebP, defaultAVIF) = try await withRunningServer(Self.configuration()) { server in
            (try await server.get(webP), try await server.get(avif))
        }
        let (lowEffortWebP, fastAVIF) = try await withRunningServer(Self.configuration {
            $0.processing.webPEffort = 1
            $0.processing.avifSpeed = 9
        }) { server in
            (try await server.get(webP), try await server.get(avif))
        }
        for reply in [defaultWebP, defaultAVIF, lowEffortWebP, fastAVIF] { #expect(reply.status == 200) }
        #expect(lowEffortWebP.body != defaultWebP.body && fastAVIF.body != defaultAVIF.body)
        #expect(lowEffortWebP.header("ETag") != defaultWebP.header("ETag"))
        #expect(fastAVIF.header("ETag") != defaultAVIF.header("ETag"))
        #expect(try ImageHeader(probing: fastAVIF.body).format == .avif)
    }

    @Test func theCompressionSettingsAreInTheFormatsKey() throws {
        var configuration = ProcessingConfiguration()
        configuration.jpegProgressive = true
        configuration.avifSpeed = 6
        configuration.pngQuantize = true
        let options = try ImgproxyURLParser(configuration: configuration).options(parsing: "f:jpg")
        #expect(OutputFormatPlan(options: options, accept: nil, configuration: configuration).cacheKey == "jpeg jpeg-progressive png-colors:256 avif-speed:6")
        #expect(OutputFormatPlan(options: options, accept: nil, configuration: ProcessingConfiguration()).cacheKey == "jpeg")
    }

    @Test func stripColorProfileZeroKeepsTheICCProfile() async throws {
        let source = "/plain/local:///sdwebimage/TestICCProfile.jpg@jpg"
        let (stripped, kept, keptUnstripped) = try await withRunningServer(Self.configuration()) { server in
            (try await server.get("/_/rs:fit:100:100" + source), try await server.get("/_/rs:fit:100:100/scp:0" + source),
             try await server.get("/_/rs:fit:100:100/strip_color_profile:0/sm:0" + source))
        }
        #expect(stripped.status == 200 && kept.status == 200 && keptUnstripped.status == 200)
        #expect(!JPEGMarkers.hasICCProfile(stripped.body))
        #expect(JPEGMarkers.hasICCProfile(kept.body) && JPEGMarkers.hasICCProfile(keptUnstripped.body))
        // `sm:0` alone keeps EXIF and the rest, not the profile (imgproxy's default `scp:1`).
        let unstripped = try await withRunningServer(Self.configuration { $0.processing.stripColorProfile = true }) {
            try await $0.get("/_/rs:fit:100:100/sm:0" + source)
        }
        #expect(!JPEGMarkers.hasICCProfile(unstripped.body))
        let configured = try await withRunningServer(Self.configuration { $0.processing.stripColorProfile = false }) {
            try await $0.get("/_/rs:fit:100:100" + source)
        }
        #expect(JPEGMarkers.hasICCProfile(configured.body))
    }

    @Test func keepCopyrightKeepsTheEXIFAndIPTCCopyrightWhenStripping() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-copyright-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let rocket = try SourceImages.data(SourceImages.rocket)
        let iptc: [(dataset: UInt8, text: String)] = [(80, "Bea Byline"), (25, "secret-keyword"), (116, "(c) IPTC Notice")]
        try JPEGMarkers.withMetadata(rocket, make: "MakerCorp", artist: "Ann Artist", copyright: "(c) Example Photo Co", iptc: iptc)
            .write(to: folder.appendingPathComponent("signed.jpg"))
        let source = "/plain/local:///signed.jpg@jpg"
        let (kept, dropped, unstripped) = try await withRunningServer(Self.configuration(root: folder.path)) { server in
            (try await server.get("/_/rs:fit:100:100" + source), try await server.get("/_/rs:fit:100:100/kcr:0" + source),
             try await server.get("/_/rs:fit:100:100/sm:0" + source))
        }
        #expect(kept.status == 200 && dropped.status == 200 && unstripped.status == 200)
        #expect(kept.body.containsText("(c) Example Photo Co") && kept.body.containsText("Ann Artist"))
        #expect(kept.body.containsText("Bea Byline") && kept.body.containsText("(c) IPTC Notice"))
        #expect(!kept.body.containsText("MakerCorp") && !kept.body.containsText("secret-keyword"))
        #expect(!dropped.body.containsText("(c) Example Photo Co") && !dropped.body.containsText("MakerCorp") && !dropped.body.containsText("Bea Byline"))
        #expect(unstripped.body.containsText("(c) Example Photo Co") && unstripped.body.containsText("MakerCorp"))
        #expect(unstripped.body.containsText("secret-keyword"))
        let configured = try await withRunningServer(Self.configuration(root: folder.path) { $0.processing.keepCopyright = false }) {
            try await $0.get("/_/rs:fit:100:100" + source)
        }
        #expect(!configured.body.containsText("(c) Example Photo Co"))
    }

    @Test func enforceThumbnailProcessesTheHEIFsEmbeddedThumbnail() async throws {
        // TestImage.heif is 1440x960 with a 240x160 thumbnail; TestImage.heic has none.
        let (primary, thumbnail, noThumbnail) = try await withRunningServer(Self.configuration()) { server in
            (try await server.get("/_/plain/local:///sdwebimage/TestImage.heif@png"),
             try await server.get("/_/eth:1/plain/local:///sdwebimage/TestImage.heif@png"),
             try await server.get("/_/eth:1/plain/local:///sdwebimage/TestImage.heic@png"))
        }
        let primaryHeader = try ImageHeader(probing: primary.body)
        let thumbnailHeader = try ImageHeader(probing: thumbnail.body)
        #expect(primaryHeader.pixelWidth == 1440 && primaryHeader.pixelHeight == 960)
        #expect(thumbnailHeader.pixelWidth == 240 && thumbnailHeader.pixelHeight == 160)
        #expect(try ImageHeader(probing: noThumbnail.body).pixelWidth == 1440)
        // A resize is of the thumbnail: never enlarged past it.
        let resized = try await withRunningServer(Self.configuration { $0.processing.enforceThumbnail = true }) {
            try await $0.get("/_/rs:fit:600:600/plain/local:///sdwebimage/TestImage.heif@png")
        }
        #expect(try ImageHeader(probing: resized.body).pixelWidth == 240)
    }

    @Test func theSettingsAreReadUnderImgproxysNames() async throws {
        let read = try await ImgproxySettingsTests.load([
            "IMGPROXY_JPEG_PROGRESSIVE": "true", "IMGPROXY_PNG_INTERLACED": "1", "IMGPROXY_PNG_QUANTIZE": "true",
            "IMGPROXY_PNG_QUANTIZATION_COLORS": "64", "IMGPROXY_WEBP_PRESET": "Photo", "IMGPROXY_WEBP_EFFORT": "6",
            "IMGPROXY_AVIF_SPEED": "0", "IMGPROXY_JXL_EFFORT": "9", "IMGPROXY_STRIP_COLOR_PROFILE": "false",
            "IMGPROXY_KEEP_COPYRIGHT": "false", "IMGPROXY_ENFORCE_THUMBNAIL": "true", "IMGPROXY_SANITIZE_SVG": "true",
            "IMGPROXY_ALWAYS_RASTERIZE_SVG": "true",
        ]).processing
        #expect(read.jpegProgressive && read.pngInterlaced && read.pngQuantize && read.pngQuantizationColors == 64)
        #expect(read.webPPreset == .photo && read.webPEffort == 6 && read.avifSpeed == 0 && read.jxlEffort == 9)
        #expect(!read.stripColorProfile && !read.keepCopyright && read.enforceThumbnail && read.sanitizeSVG && read.alwaysRasterizeSVG)
        let defaults = ProcessingConfiguration()
        #expect(!defaults.jpegProgressive && defaults.pngQuantizationColors == 256 && defaults.avifSpeed == 8 && defaults.webPEffort == 4)
        #expect(defaults.stripColorProfile && defaults.keepCopyright && !defaults.enforceThumbnail)
        let problems = await ImgproxySettingsTests.problems([
            "IMGPROXY_PNG_QUANTIZATION_COLORS": "1", "IMGPROXY_AVIF_SPEED": "10", "IMGPROXY_WEBP_PRESET": "sketch", "IMGPROXY_SANITIZE_SVG": "false",
            "IMGPROXY_ALWAYS_RASTERIZE_SVG": "false",
        ])
        for name in ["PNG_QUANTIZATION_COLORS", "AVIF_SPEED", "WEBP_PRESET", "SANITIZE_SVG", "ALWAYS_RASTERIZE_SVG"] {
            #expect(problems.contains { $0.hasPrefix("WEBIMAGE_" + name) }, "\(name): \(problems)")
        }
    }

    /// imgproxy serves an SVG source as SVG, its scripts and event handlers removed
    /// (`SANITIZE_SVG`); here it is rasterised: nothing of the SVG's text reaches the client.
    @Test func aHostileSVGSourceIsServedAsPixelsOnly() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-svg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let hostile = """
            <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="64" height="64" onload="alert('onload')">
            <script>alert('script')</script>
            <a xlink:href="javascript:alert('href')"><rect width="64" height="64" fill="red" onclick="alert('click')"/></a>
            </svg>
            """
        try Data(hostile.utf8).write(to: folder.appendingPathComponent("hostile.svg"))
        let (automatic, asSVG) = try await withRunningServer(Self.configuration(root: folder.path)) { server in
            (try await server.get("/_/plain/local:///hostile.svg"), try await server.get("/_/plain/local:///hostile.svg@svg"))
        }
        #expect(automatic.status == 200 && ImageFormat(sniffing: automatic.body) == .png)
        #expect(asSVG.status != 200)
        for reply in [automatic, asSVG] {
            #expect(!reply.body.containsText("alert") && !reply.body.containsText("<svg"))
        }
    }

    /// `SKIP_PROCESSING_FORMATS`: the source's own bytes when its format is listed and no other
    /// is asked; `skp` adds formats to the setting's.
    @Test func skipProcessingFormatsSendsListedSourcesAsTheyAre() async throws {
        let png = try SourceImages.data(SourceImages.alphaPNG)
        let gif = try SourceImages.data(SourceImages.loopGIF)
        let (listed, otherFormat, added) = try await withRunningServer(Self.configuration { $0.processing.skipProcessingFormats = [.png] }) { server in
            (try await server.get("/_/rs:fit:50:50/plain/local:///" + SourceImages.alphaPNG),
             try await server.get("/_/rs:fit:50:50/plain/local:///\(SourceImages.alphaPNG)@webp"),
             try await server.get("/_/rs:fit:50:50/skp:gif/plain/local:///" + SourceImages.loopGIF))
        }
        #expect(listed.status == 200 && listed.body == png)
        #expect(otherFormat.status == 200 && ImageFormat(sniffing: otherFormat.body) == .webP)
        #expect(added.status == 200 && added.body == gif)
        let read = try await ImgproxySettingsTests.load(["IMGPROXY_SKIP_PROCESSING_FORMATS": "png, gif"])
        #expect(read.processing.skipProcessingFormats == [.png, .gif])
    }

    /// `SOURCE_URL_QUERY_SEPARATOR`: a `local://` URL's query is cut (`%3F` is a `?` in the
    /// source URL, not the request's query), an `s3://` URL's is its version; empty, set as such,
    /// makes the `?` part of the path.
    @Test func sourceURLQuerySeparatorEndsLocalAndS3Paths() async throws {
        #expect(S3ObjectAddress("s3://bucket/a/b.jpg?versionId=3") == S3ObjectAddress(bucket: "bucket", key: "a/b.jpg", versionID: "3"))
        #expect(S3ObjectAddress("s3://bucket/a/b.jpg!!versionId=3", querySeparator: "!!") == S3ObjectAddress(bucket: "bucket", key: "a/b.jpg", versionID: "3"))
        #expect(S3ObjectAddress("s3://bucket/a/b.jpg?x", querySeparator: "") == S3ObjectAddress(bucket: "bucket", key: "a/b.jpg?x"))
        let path = "/_/rs:fit:50:50/plain/local:///photos/rocket.jpg%3Fv=2@jpg"
        #expect(try await withRunningServer(Self.configuration()) { try await $0.get(path) }.status == 200)
        let read = try await ImgproxySettingsTests.load(["IMGPROXY_SOURCE_URL_QUERY_SEPARATOR": ""])
        #expect(read.processing.sourceURLQuerySeparator.isEmpty)
        let none = try await withRunningServer(Self.configuration { $0.processing.sourceURLQuerySeparator = "" }) { try await $0.get(path) }
        #expect(none.status == 404)
        let other = try await withRunningServer(Self.configuration { $0.processing.sourceURLQuerySeparator = "!!" }) { server in
            (try await server.get("/_/rs:fit:50:50/plain/local:///photos/rocket.jpg!!v=2@jpg"), try await server.get(path))
        }
        #expect(other.0.status == 200 && other.1.status == 404)
    }
}

/// What a JPEG's markers say, read as a decoder would: segment by segment up to the scan.
enum JPEGMarkers {
    /// The SOF marker's second byte: 0xC0 baseline, 0xC1 extended, 0xC2 progressive.
    static func frameMarker(of data: Data) -> UInt8? {
        segments(of: data).first { (0xC0...0xCF).contains($0.marker) && ![0xC4, 0xC8, 0xCC].contains($0.marker) }?.marker
    }

    /// An APP2 `ICC_PROFILE` segment is there.
    static func hasICCProfile(_ data: Data) -> Bool {
        segments(of: data).contains { $0.marker == 0xE2 && $0.payload.starts(with: Data("ICC_PROFILE\0".utf8)) }
    }

    /// The segments before the first scan: marker and payload.
    static func segments(of data: Data) -> [(marker: UInt8, payload: Data)] {
        let bytes = [UInt8](data)
        var segments: [(UInt8, Data)] = []
        var index = 2
        while index + 4 <= bytes.count, bytes[index] == 0xFF {
            let marker = bytes[index + 1]
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            guard length >= 2, index + 2 + length <= bytes.count else { break }
            segments.append((marker, Data(bytes[(index + 4)..<(index + 2 + length)])))
            if marker == 0xDA { break }
            index += 2 + length
        }
        return segments
    }

    /// `jpeg` with, after its SOI, an EXIF APP1 segment holding Make, Artist and Copyright (IFD0,
    /// little-endian TIFF), and an APP13 segment holding `iptc`'s application datasets (record 2).
    static func withMetadata(_ jpeg: Data, make: String, artist: String, copyright: String, iptc: [(dataset: UInt8, text: String)]) -> Data {
        let entries: [(tag: UInt16, text: String)] = [(0x010F, make), (0x013B, artist), (0x8298, copyright)]
        var tiff: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00]
        func append16(_ value: Int) { tiff += [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
        func append32(_ value: Int) { append16(value & 0xFFFF); append16(value >> 16) }
        append16(entries.count)
        var valueOffset = 8 + 2 + entries.count * 12 + 4
        var values: [UInt8] = []
        for entry in entries {
            let text = Array(entry.text.utf8) + [0]
            append16(Int(entry.tag))
            append16(2) // ASCII
            append32(text.count)
            append32(valueOffset)
            values += text
            valueOffset += text.count
        }
        append32(0)
        tiff += values
        let iim = iptc.flatMap { dataset in
            let text = Array(dataset.text.utf8)
            return [0x1C, 2, dataset.dataset, UInt8(text.count >> 8), UInt8(text.count & 0xFF)] + text
        }
        var resources = Array("Photoshop 3.0\0".utf8) + Array("8BIM".utf8) + [0x04, 0x04, 0, 0]
        resources += [0, 0, UInt8(iim.count >> 8), UInt8(iim.count & 0xFF)] + iim + (iim.count % 2 == 1 ? [0] : [])
        func segment(_ marker: UInt8, _ payload: [UInt8]) -> Data {
            Data([0xFF, marker, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload)
        }
        return jpeg.prefix(2) + segment(0xE1, Array("Exif\0\0".utf8) + tiff) + segment(0xED, resources) + jpeg.dropFirst(2)
    }
}

/// A PNG's IHDR fields and the size of its palette.
struct PNGHeader {
    let bitDepth: UInt8
    let colorType: UInt8
    let interlace: UInt8
    /// Entries of the PLTE chunk; nil without one.
    let paletteCount: Int?

    init?(_ data: Data) {
        let bytes = [UInt8](data)
        guard bytes.count > 33, bytes[12..<16].elementsEqual("IHDR".utf8) else { return nil }
        bitDepth = bytes[24]
        colorType = bytes[25]
        interlace = bytes[28]
        var index = 8
        var palette: Int?
        while index + 8 <= bytes.count {
            let length = bytes[index..<(index + 4)].reduce(0) { $0 << 8 | Int($1) }
            if bytes[(index + 4)..<(index + 8)].elementsEqual("PLTE".utf8) { palette = length / 3 }
            index += 12 + length
        }
        paletteCount = palette
    }
}

extension Data {
    /// The UTF-8 bytes of `text` appear in these bytes.
    func containsText(_ text: String) -> Bool {
        range(of: Data(text.utf8)) != nil
    }
}
