import Foundation
import ImageEngine
import Testing
@testable import WebImage
import WebImageTestSupport

/// `WatermarkTransformer` against references made apart from it: the mark put in with libvips'
/// `insert` (no blending) where it is opaque, and the blend computed by hand where it is not.
@Suite(.offThePool) struct WatermarkTransformerTests {
    static let green = RGBA8(red: 0, green: 255, blue: 0)

    /// A `width` x `height` mark of one colour.
    static func solid(_ colour: RGBA8, width: Int, height: Int) throws -> WebImage.Image {
        let bytes = [UInt8]((0..<width * height).flatMap { _ in [colour.red, colour.green, colour.blue, colour.alpha] })
        let image = WebImage.Image(rgba8Pixels: bytes, width: width, height: height)
        return try #require(image)
    }

    /// The photo with opaque `width` x `height` green blocks put in at each of `origins`, cut at
    /// its edges: what an opaque mark must give.
    static func photo(withGreenBlocks origins: [(x: Int, y: Int)], width: Int, height: Int) throws -> VipsImageRef {
        let block = try VipsImageRef.wrapping(try solid(green, width: width, height: height).renderedPixels()).alphaBand(adding: false)
        var reference = try GravityTransformerTests.photo()
        for origin in origins { reference = try reference.inserting(block, x: origin.x, y: origin.y) }
        return reference
    }

    @Test(arguments: [false, true])
    func theMarkLandsAtEachGravityWithItsOffsets(lazy: Bool) throws {
        let photo = try TransformInput.image(TransformInput.photo, lazy: lazy)
        let mark = try Self.solid(Self.green, width: 40, height: 30)
        // (gravity, the mark's top-left corner in the 640x427 photo, by imgproxy's calcPosition)
        let cases: [(ImageGravity, Int, Int)] = [
            (.center, 300, 199),
            (.anchor(.north, x: .points(10), y: .points(20)), 310, 20),
            (.anchor(.south, x: .points(10), y: .points(20)), 310, 377),
            (.anchor(.east, x: .points(10), y: .points(20)), 590, 219),
            (.anchor(.west, x: .points(10), y: .points(20)), 10, 219),
            (.anchor(.northEast, x: .points(10), y: .points(20)), 590, 20),
            (.anchor(.northWest, x: .points(10), y: .points(20)), 10, 20),
            (.anchor(.southEast, x: .points(10), y: .points(20)), 590, 377),
            (.anchor(.southWest, x: .points(10), y: .points(20)), 10, 377),
            // A fraction of the image's side; negative offsets move it past the edge, where it
            // is cut; however far, a pixel of it stays.
            (.anchor(.southEast, x: .fraction(0.25)), 440, 397),
            (.anchor(.east, x: .points(-20)), 620, 199),
            (.anchor(.northWest, x: .points(-1000), y: .points(-1000)), -39, -29),
        ]
        for (gravity, x, y) in cases {
            let marked = try TransformInput.transform(photo, WatermarkTransformer(mark: mark, position: .gravity(gravity)))
            #expect(!marked.hasAlpha)
            let reference = try Self.photo(withGreenBlocks: [(x, y)], width: 40, height: 30)
            #expect(try GravityTransformerTests.difference(marked, reference) == 0, "\(gravity)")
        }
    }

    @Test(arguments: [false, true])
    func theScaleIsAFractionOfTheResult(lazy: Bool) throws {
        let photo = try TransformInput.image(TransformInput.photo, lazy: lazy)
        let mark = try Self.solid(Self.green, width: 40, height: 30)
        // Fitted into 160x107 (a quarter of 640x427): 143x107, centred at (249, 160).
        let marked = try TransformInput.transform(photo, WatermarkTransformer(mark: mark, scale: 0.25))
        #expect(try GravityTransformerTests.difference(marked, try Self.photo(withGreenBlocks: [(249, 160)], width: 143, height: 107)) == 0)
        // The same transformer on a smaller result draws a smaller mark: a quarter of 320x214 is
        // 80x54 (53.5 to even), fitted 72x54.
        let smaller = try TransformInput.transform(photo, ResizingTransformer(size: CGSize(width: 320, height: 214), scaleMode: .fill))
        let smallMarked = try TransformInput.transform(smaller, WatermarkTransformer(mark: mark, scale: 0.25))
        let changed = try Self.changedArea(smallMarked, from: smaller)
        #expect(changed == CGRect(x: 124, y: 80, width: 72, height: 54))
        // Without a scale a mark larger than the image keeps its size: the image shows its middle.
        let large = try Self.solid(Self.green, width: 800, height: 500)
        let covered = try TransformInput.transform(photo, WatermarkTransformer(mark: large))
        #expect(try GravityTransformerTests.difference(covered, try Self.photo(withGreenBlocks: [(-80, -36)], width: 800, height: 500)) == 0)
    }

    /// The bounding box of the pixels of `image` that differ from `original`'s.
    static func changedArea(_ image: WebImage.Image, from original: WebImage.Image) throws -> CGRect {
        let (after, before) = (try TransformInput.pixels(image), try TransformInput.pixels(original))
        var (minX, minY, maxX, maxY) = (Int.max, Int.max, -1, -1)
        for index in after.indices where after[index] != before[index] {
            let (x, y) = (index % image.pixelWidth, index / image.pixelWidth)
            (minX, minY, maxX, maxY) = (min(minX, x), min(minY, y), max(maxX, x), max(maxY, y))
        }
        return maxX < 0 ? .null : CGRect(x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1)
    }

    /// `over` drawn on `under` at `opacity`, in premultiplied alpha, computed here sample by
    /// sample: alpha a = aOver * opacity + aUnder * (1 - aOver * opacity), each colour
    /// (c * aOver * opacity + cUnder * aUnder * (1 - aOver * opacity)) / a.
    static func blended(_ over: RGBA8, on under: RGBA8, opacity: Double) -> RGBA8 {
        let top = Double(over.alpha) / 255 * opacity, bottom = Double(under.alpha) / 255
        let alpha = top + bottom * (1 - top)
        func colour(_ upper: UInt8, _ lower: UInt8) -> UInt8 {
            guard alpha > 0 else { return 0 }
            return UInt8(((Double(upper) * top + Double(lower) * bottom * (1 - top)) / alpha).rounded())
        }
        return RGBA8(
            red: colour(over.red, under.red), green: colour(over.green, under.green), blue: colour(over.blue, under.blue),
            alpha: UInt8((alpha * 255).rounded())
        )
    }

    @Test(arguments: [false, true])
    func opacityBlendsInPremultipliedAlpha(lazy: Bool) throws {
        // The RGBA image (transparent around an opaque body, soft edges) marked with the photo
        // at half opacity, and the photo marked with the RGBA image.
        let alphaImage = try TransformInput.image(TransformInput.alphaImage, lazy: lazy)
        let photo = try TransformInput.image(TransformInput.photo, lazy: lazy)
        for (base, mark) in [(alphaImage, photo), (photo, alphaImage)] {
            let marked = try TransformInput.transform(base, WatermarkTransformer(mark: mark, opacity: 0.5))
            let (basePixels, markPixels, result) = (try TransformInput.pixels(base), try TransformInput.pixels(mark), try TransformInput.pixels(marked))
            let origin = ImageGravity.center.origin(
                inner: (mark.pixelWidth, mark.pixelHeight), outer: (base.pixelWidth, base.pixelHeight), scale: 1, overhanging: true
            )
            var largest = 0
            var overTransparent = 0
            for y in 0..<base.pixelHeight {
                for x in 0..<base.pixelWidth {
                    let under = basePixels[y * base.pixelWidth + x]
                    let (markX, markY) = (x - origin.x, y - origin.y)
                    let inside = markX >= 0 && markY >= 0 && markX < mark.pixelWidth && markY < mark.pixelHeight
                    let over = inside ? markPixels[markY * mark.pixelWidth + markX] : RGBA8.clear
                    let expected = Self.blended(over, on: under, opacity: 0.5)
                    let got = result[y * base.pixelWidth + x]
                    largest = max(largest, [
                        abs(Int(got.red) - Int(expected.red)), abs(Int(got.green) - Int(expected.green)),
                        abs(Int(got.blue) - Int(expected.blue)), abs(Int(got.alpha) - Int(expected.alpha)),
                    ].max() ?? 0)
                    if under.alpha == 0, over.alpha == 255 { overTransparent += 1 }
                }
            }
            #expect(largest <= 1)
            if base === alphaImage {
                // Over transparent pixels the mark keeps its own colour (half as opaque): a straight
                // blend would mix in the colour of pixels nobody sees.
                #expect(overTransparent > 10_000)
                #expect(marked.hasAlpha)
            }
        }
    }

    @Test(arguments: [false, true])
    func tiledMarksCoverTheImageCentredWithTheirGaps(lazy: Bool) throws {
        let photo = try TransformInput.image(TransformInput.photo, lazy: lazy)
        let mark = try Self.solid(Self.green, width: 40, height: 30)
        let tiled = try TransformInput.transform(
            photo, WatermarkTransformer(mark: mark, position: .tiled(horizontalSpacing: .points(10), verticalSpacing: .points(10)))
        )
        // Tiles of 50x40 (the gap half before, half after the mark), 13 across and 11 down (odd,
        // the middle one centred), 650x440 cut to 640x427 from (5, 6): marks at x = 50k,
        // y = 40j - 1.
        var origins: [(x: Int, y: Int)] = []
        for column in 0..<13 { for row in 0..<11 { origins.append((50 * column, 40 * row - 1)) } }
        #expect(try GravityTransformerTests.difference(tiled, try Self.photo(withGreenBlocks: origins, width: 40, height: 30)) == 0)
        // A gap wider than the image leaves one column, centred (x = 300); rows 30 apart, 15 of
        // them (450 cut to 427 from 11).
        let column = try TransformInput.transform(photo, WatermarkTransformer(mark: mark, position: .tiled(horizontalSpacing: .points(1e9))))
        let rows = (0..<15).map { (x: 300, y: 30 * $0 - 11) }
        #expect(try GravityTransformerTests.difference(column, try Self.photo(withGreenBlocks: rows, width: 40, height: 30)) == 0)
    }

    @Test(arguments: ["sdwebimage/TestImageAnimated.webp", "sdwebimage/TestLoopCount.gif"])
    func everyFrameOfAnAnimationHasTheMark(file: String) throws {
        let animated = try TestImages.decoded(try TestImages.data(file))
        #expect(animated.frameCount > 1)
        let mark = try Self.solid(Self.green, width: 20, height: 10)
        let marked = try TransformInput.transform(animated, WatermarkTransformer(mark: mark, position: .gravity(.anchor(.southEast, x: .points(3), y: .points(4)))))
        #expect(marked.frameCount == animated.frameCount && marked.loopCount == animated.loopCount)
        let (x, y) = (animated.pixelWidth - 23, animated.pixelHeight - 14)
        let block = try VipsImageRef.wrapping(try mark.renderedPixels())
        for index in 0..<animated.frameCount {
            let frame = try #require(animated.frame(at: index))
            var reference = try VipsImageRef.wrapping(try frame.renderedPixels())
            if !frame.hasAlpha { reference = try reference.alphaBand(adding: false) }
            reference = try reference.inserting(frame.hasAlpha ? block : try block.alphaBand(adding: false), x: x, y: y)
            let got = try #require(marked.frame(at: index))
            let expected = try reference.renderRGBA()
            let expectedImage = expected.withUnsafeBytes { WebImage.Image(rgba8Pixels: Array($0), width: expected.width, height: expected.height) }
            // As seen: the frames have alpha, and the colour of their wholly transparent pixels
            // is not kept by the blend.
            #expect(try TransformInput.largestDifference(got, try #require(expectedImage)) == 0, "frame \(index)")
            #expect(marked.frameDuration(at: index) == animated.frameDuration(at: index))
        }
    }

    @Test(arguments: [false, true])
    func aFullyTransparentMarkOrOpacity0ChangesNothing(lazy: Bool) throws {
        let clearMark = try Self.solid(.clear, width: 200, height: 100)
        for file in [TransformInput.photo, TransformInput.alphaImage] {
            let image = try TransformInput.image(file, lazy: lazy)
            for transformer in [
                WatermarkTransformer(mark: clearMark), WatermarkTransformer(mark: clearMark, position: .tiled(), scale: 0.5),
                WatermarkTransformer(mark: try Self.solid(Self.green, width: 40, height: 30), opacity: 0),
            ] {
                let marked = try TransformInput.transform(image, transformer)
                // Every sample of an opaque image; as seen where there is alpha (the colour of a
                // wholly transparent pixel, which shows nowhere, is not kept by the blend).
                if image.hasAlpha {
                    #expect(try TransformInput.largestDifference(marked, image) == 0, "\(file) \(transformer.transformerKey)")
                } else {
                    #expect(try TransformInput.pixels(marked) == (try TransformInput.pixels(image)), "\(file) \(transformer.transformerKey)")
                }
            }
        }
    }

    @Test func theKeyNamesTheMarkAndEachParameter() throws {
        let green = try Self.solid(Self.green, width: 40, height: 30)
        let base = WatermarkTransformer(mark: green, opacity: 0.5, position: .gravity(.anchor(.southEast, x: .points(10))), scale: 0.2)
        #expect(base.transformerKey.hasPrefix("WatermarkTransformer(") && base.transformerKey.hasSuffix(",0.500000,southEast,p10.000000,p0.000000,0.200000)"))
        // The same mark decoded again gives the same key.
        let again = WatermarkTransformer(mark: try Self.solid(Self.green, width: 40, height: 30), opacity: 0.5, position: base.position, scale: 0.2)
        #expect(again.transformerKey == base.transformerKey)
        let others = [
            WatermarkTransformer(mark: try Self.solid(.black, width: 40, height: 30), opacity: 0.5, position: base.position, scale: 0.2),
            WatermarkTransformer(mark: green, opacity: 0.6, position: base.position, scale: 0.2),
            WatermarkTransformer(mark: green, opacity: 0.5, position: .gravity(.anchor(.southEast, x: .points(11))), scale: 0.2),
            WatermarkTransformer(mark: green, opacity: 0.5, position: .tiled(horizontalSpacing: .points(10)), scale: 0.2),
            WatermarkTransformer(mark: green, opacity: 0.5, position: base.position, scale: 0.3),
        ]
        #expect(Set(others.map(\.transformerKey) + [base.transformerKey]).count == others.count + 1)
    }

    @Test func aMarkThatCannotBeDecodedGivesNil() throws {
        var options = ImageCoderOptions()
        options.decodeUseLazyDecoding = true
        // A PNG whose data is cut: the header reads, the pixels do not.
        let truncated = try TestImages.data(TransformInput.alphaImage).prefix(2000)
        let mark = try VipsImageCoder.shared.decode(Data(truncated), options: options)
        let transformer = WatermarkTransformer(mark: mark)
        #expect(transformer.transformedImage(with: try TransformInput.image(TransformInput.photo), forKey: "") == nil)
    }
}
