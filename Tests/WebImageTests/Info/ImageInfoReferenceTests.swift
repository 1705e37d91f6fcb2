import Foundation
import Testing
import WebImage
import WebImageTestSupport

/// `ImageInfo` against exiftool on the repository's images: what a user reads from /info
/// (size, orientation, frames, EXIF, XMP, alpha, digests) is what exiftool and the coreutils
/// read from the same files.
@Suite(.offThePool) struct ImageInfoReferenceTests {
    static let orientationFiles = (0...8).map { "exif-orientation/Landscape_\($0).jpg" }

    /// libexif's words for orientations 1...8, the EXIF specification's row/column order.
    static let orientationWords = ["Top-left", "Top-right", "Bottom-right", "Bottom-left", "Left-top", "Right-top", "Right-bottom", "Left-bottom"]

    static func info(_ file: String, _ options: String = "") throws -> ImageInfo {
        try ImageInfo(data: TestImages.data(file), options: InfoOptions(parsing: options))
    }

    /// The orientation set: upright size, orientation, the EXIF tags exiftool reads (by their
    /// canonical names) and their values, the resolution's numbers and the orientation's word.
    @Test(arguments: orientationFiles)
    func exifOrientationSetAgreesWithExiftool(file: String) async throws {
        let reference = try await Exiftool.tags(of: TestImages.url(file))
        let info = try Self.info(file, "exif:1:1")
        // Landscape_0 has an Orientation tag of 0, which is none: imgproxy says 1 then.
        let stored = Int(reference["EXIF:Orientation"] ?? "1") ?? 0
        let orientation = (1...8).contains(stored) ? stored : 1
        #expect(info.orientation == orientation)
        let size = try Exiftool.storedSize(reference)
        let upright = orientation >= 5 ? (size.height, size.width) : (size.width, size.height)
        #expect(info.pixelWidth == upright.0 && info.pixelHeight == upright.1, "\(info.pixelWidth)x\(info.pixelHeight)")

        let exif = info.exif(canonicalNames: true)
        let referenceNames = Exiftool.names(in: reference, group: "EXIF")
        #expect(referenceNames.isSubset(of: Set(exif.keys)), "exiftool: \(referenceNames.sorted()), ours: \(exif.keys.sorted())")
        #expect(exif["Orientation"] == ((1...8).contains(stored) ? Self.orientationWords[stored - 1] : "Unknown value \(stored)"))
        for name in ["XResolution", "YResolution"] {
            #expect(exif[name].flatMap(Double.init) == reference["EXIF:\(name)"].flatMap(Double.init), "\(name)")
        }
        // The default names are libexif's titles, imgproxy's human-readable ones.
        let titled = info.exif(canonicalNames: false)
        #expect(titled.count == exif.count)
        if !exif.isEmpty { #expect(titled["X-Resolution"] == exif["XResolution"] && titled["Resolution Unit"] == "Inch") }
    }

    /// A photo with a camera's software, date and pixel dimensions: strings and numbers equal
    /// to exiftool's (its names for two tags differ from the EXIF specification's).
    @Test func photoEXIFValuesEqualExiftools() async throws {
        let file = "photos/hubble_deep_field.jpg"
        let reference = try await Exiftool.tags(of: TestImages.url(file))
        let exif = try Self.info(file).exif(canonicalNames: true)
        #expect(exif["Software"] == reference["EXIF:Software"] && exif["Software"] == "Adobe Photoshop CS5 Macintosh")
        #expect(exif["DateTime"] == reference["EXIF:ModifyDate"])
        #expect(exif["PixelXDimension"] == reference["EXIF:ExifImageWidth"] && exif["PixelYDimension"] == reference["EXIF:ExifImageHeight"])
        #expect(exif["XResolution"].flatMap(Double.init) == 300 && reference["EXIF:XResolution"] == "300")
        let titled = try Self.info(file).exif(canonicalNames: false)
        #expect(titled["Date and Time"] == reference["EXIF:ModifyDate"] && titled["Color Space"] == "sRGB")
    }

    static let formatFiles = [
        "photos/rocket.jpg", "photos/astronaut.png", "photos/hubble_deep_field.jpg", "photos/no_time_for_that_tiny.gif",
        "sdwebimage/TestImage.png", "sdwebimage/IndexedPNG.png", "sdwebimage/RGBA16PNG.png", "sdwebimage/MonochromeTestImage.jpg",
        "sdwebimage/TestEXIF.png", "sdwebimage/TestICCProfile.jpg", "sdwebimage/TestImage.gif", "sdwebimage/TestLoopCount.gif",
        "sdwebimage/TestImageAnimated.apng", "sdwebimage/TestImageStatic.webp", "sdwebimage/TestImageAnimated.webp",
        "webp/lossy_alpha1.webp", "webp/lossless1.webp", "webp/test.webp",
    ]

    /// Format, MIME type, size, frames, alpha and XMP presence of JPEG, PNG, APNG, GIF and WebP
    /// files, as exiftool reads them.
    @Test(arguments: formatFiles)
    func headerFactsAgreeWithExiftool(file: String) async throws {
        let reference = try await Exiftool.tags(of: TestImages.url(file))
        let info = try Self.info(file)
        // exiftool's own type for an animated PNG; /info's format is PNG's.
        #expect(info.mimeType == reference["File:MIMEType"].map { $0 == "image/apng" ? "image/png" : $0 })
        #expect(info.byteCount == Int(reference["File:FileSize"] ?? ""))
        let stored = try Exiftool.storedSize(reference)
        let orientation = Int(reference["EXIF:Orientation"] ?? "1") ?? 1
        let upright = orientation >= 5 ? (stored.height, stored.width) : (stored.width, stored.height)
        #expect(info.pixelWidth == upright.0 && info.pixelHeight == upright.1)
        if let frames = reference["GIF:FrameCount"] ?? reference["PNG:AnimationFrames"] {
            #expect(info.pagesNumber == Int(frames))
        }
        // PNG colour types 4 and 6 carry alpha, 3 with a tRNS chunk a transparent index.
        if let colorType = reference["PNG:ColorType"].flatMap(Int.init) {
            let transparentIndex = colorType == 3 && reference["PNG:Transparency"] != nil
            #expect(info.hasAlpha == (colorType == 4 || colorType == 6 || transparentIndex), "colour type \(colorType)")
        }
        let hasXMP = !Exiftool.names(in: reference, group: "XMP").isEmpty
        #expect((info.xmp != nil) == hasXMP, "exiftool's XMP: \(hasXMP)")
        if let xmp = info.xmp { #expect(xmp.contains("rdf:RDF")) }
    }

    /// An animated WebP's frames (exiftool counts none): the test images' README says 8.
    @Test func animatedWebPPagesNumber() throws {
        let info = try Self.info("sdwebimage/TestImageAnimated.webp", "pn:1/a:1")
        #expect(info.pagesNumber == 8 && info.hasAlpha)
    }

    /// The colour facts libvips' header gives (what `vipsheader` prints).
    @Test func colourspaceBandsAndSampleFormat() throws {
        let grey = try Self.info("sdwebimage/MonochromeTestImage.jpg", "cs:1/b:1/sf:1")
        #expect(grey.colorspace == "b-w" && grey.bands == 1 && grey.sampleFormat == "uchar")
        let deep = try Self.info("sdwebimage/RGBA16PNG.png", "cs:1/b:1/sf:1")
        #expect(deep.colorspace == "rgb16" && deep.bands == 4 && deep.sampleFormat == "ushort" && deep.hasAlpha)
        let photo = try Self.info("photos/rocket.jpg", "cs:1/b:1/sf:1")
        #expect(photo.colorspace == "srgb" && photo.bands == 3 && photo.sampleFormat == "uchar" && !photo.hasAlpha)
    }

    /// Each digest equal to the coreutils tool's.
    @Test(arguments: ["photos/rocket.jpg", "sdwebimage/TestImageAnimated.webp", "sdwebimage/TestImage.png"])
    func hashsumsEqualCoreutils(file: String) async throws {
        let info = try Self.info(file, "chs:md5:sha1:sha256:sha512")
        #expect(info.hashsums.count == 4)
        for kind in Hashsum.allCases {
            let tool = try await ChildProcess.run(executable: URL(fileURLWithPath: "/usr/bin/\(kind.rawValue)sum"), [TestImages.url(file).path])
            let expected = tool.standardOutput.split(separator: " ").first.map(String.init)
            #expect(info.hashsums[kind] == expected, "\(kind)")
        }
    }

    /// Transparency read from pixels: a WebP with transparent areas, an APNG whose first frame's
    /// alpha is opaque throughout (`vips min` of its alpha band: 255), a JPEG without alpha.
    @Test func transparencyCheck() throws {
        let transparent = try Self.info("webp/lossy_alpha1.webp", "a:1:1")
        #expect(transparent.hasAlpha && transparent.isTransparent == true)
        let opaque = try Self.info("sdwebimage/TestImageAnimated.apng", "a:1:1")
        #expect(opaque.hasAlpha && opaque.isTransparent == false)
        let jpeg = try Self.info("photos/rocket.jpg", "a:1:1")
        #expect(!jpeg.hasAlpha && jpeg.isTransparent == false)
        let unchecked = try Self.info("webp/lossy_alpha1.webp", "a:1")
        #expect(unchecked.isTransparent == nil)
    }
}
