import Foundation
import ImageEngine
import Testing
import WebImageTestSupport

/// `VipsImageRef`'s typed operations (arithmetic, interpretation, compositing, the tile cache)
/// on a real photo: each gives, byte for byte, what libvips gives for the operation named with
/// its options in libvips' string form (as the library called it before they were typed), and
/// what its definition computes from the photo's samples.
@Suite(.offThePool) struct TypedOperationsTests {
    /// A 64x48 area of rocket.jpg (a 640x427 opaque 8-bit sRGB photo; the default one's
    /// levels run from 19 to 253), as a bitmap.
    static func photo(x: Int = 300, y: Int = 300, width: Int = 64, height: Int = 48) throws -> VipsImageRef {
        let photo = try VipsImageRef.load("jpegload_buffer", data: try TestImages.data("photos/rocket.jpg"))
        return try VipsImageRef.wrapping(try photo.extractingArea(x: x, y: y, width: width, height: height).render())
    }

    /// An image's samples as bytes, band by band, pixel by pixel.
    static func bytes(_ image: VipsImageRef) throws -> [UInt8] {
        try image.render().withUnsafeBytes { Array($0) }
    }

    /// A 16-bit image's samples.
    static func shorts(_ image: VipsImageRef) throws -> [UInt16] {
        try #require(image.isSixteenBit)
        return try image.render().withUnsafeBytes { bytes in
            (0..<bytes.count / 2).map { bytes.loadUnaligned(fromByteOffset: $0 * 2, as: UInt16.self) }
        }
    }

    /// A 32-bit floating-point image's samples.
    static func floats(_ image: VipsImageRef) throws -> [Float] {
        try #require(image.bytesPerPixel == image.bands * 4)
        return try image.render().withUnsafeBytes { bytes in
            (0..<bytes.count / 4).map { bytes.loadUnaligned(fromByteOffset: $0 * 4, as: Float.self) }
        }
    }

    /// True when both images have one size, the same bands and format, and the same bytes.
    static func same(_ ours: VipsImageRef, _ libvips: VipsImageRef) throws -> Bool {
        guard ours.width == libvips.width, ours.height == libvips.height, ours.bands == libvips.bands,
              ours.bytesPerPixel == libvips.bytesPerPixel
        else { return false }
        return try bytes(ours) == bytes(libvips)
    }

    /// The largest difference between `samples` and `expected(index, value)` for each of `inputs`.
    static func largestError(_ samples: [Float], _ inputs: [Float], _ expected: (Int, Float) -> Double) -> Double {
        zip(samples.indices, zip(samples, inputs)).map { index, pair in abs(Double(pair.0) - expected(index, pair.1)) }.max() ?? .infinity
    }

    @Test func arithmeticIsLibvipsOwnAndItsDefinition() throws {
        // The photo's samples scaled to 0...1 in floating point: the inputs of every check.
        let unit = try Self.photo().linear(multipliers: [1.0 / 255], addends: [0])
        let u = try Self.floats(unit)
        #expect(u.count == 64 * 48 * 3 && Set(u).count > 100)

        let squared = try unit.multiplying(by: unit)
        #expect(try Self.same(squared, try unit.call("multiply", with: unit, names: ("left", "right"))))
        #expect(try Self.floats(squared) == u.map { $0 * $0 })

        let doubled = try unit.adding(unit)
        #expect(try Self.same(doubled, try unit.call("add", with: unit, names: ("left", "right"))))
        #expect(try Self.floats(doubled) == u.map { $0 + $0 })

        let centred = try unit.linear(multipliers: [1], addends: [-0.5])
        let c = try Self.floats(centred)
        #expect(c.contains { $0 < 0 } && c.contains { $0 > 0 })
        #expect(try Self.same(centred.absolute(), try centred.call("abs")))
        #expect(try Self.floats(centred.absolute()) == c.map { abs($0) })

        // One exponent a band; the reference's written as the gain map's rendition wrote them
        // ("2.0" where the typed operation writes "2").
        let exponents = [1 / 2.2, 2, 1]
        let powered = try unit.raisedToPower(exponents)
        let written = exponents.map { String($0) }.joined(separator: " ")
        #expect(try Self.same(powered, try unit.call("math2_const", "math2=pow,c=\(written)")))
        #expect(Self.largestError(try Self.floats(powered), u) { pow(Double($1), exponents[$0 % 3]) } <= 1e-6)
        // One exponent for every band: the reciprocal, as PQ's curve takes it.
        let shifted = try unit.linear(multipliers: [1], addends: [1])
        let reciprocal = try shifted.raisedToPower([-1])
        #expect(try Self.same(reciprocal, try shifted.call("math2_const", "math2=pow,c=-1")))
        #expect(Self.largestError(try Self.floats(reciprocal), try Self.floats(shifted)) { 1 / Double($1) } <= 1e-6)

        let exponential = try unit.exponential()
        #expect(try Self.same(exponential, try unit.call("math", "math=exp")))
        #expect(Self.largestError(try Self.floats(exponential), u) { exp(Double($1)) } <= 3e-6)

        // The tile cache changes no sample.
        #expect(try Self.same(squared.cachingTiles(), squared))
        #expect(try Self.same(squared.cachingTiles(), try squared.call("tilecache", "threaded=true")))
    }

    @Test func colourSpacesConvertAndInterpretationsRelabel() throws {
        let photo = try Self.photo()
        let source = try Self.bytes(photo)

        // scRGB: sRGB's curve undone, in floating point (libvips' table of the 256 levels).
        let linear = try photo.inColourSpace(.scrgb)
        #expect(try Self.same(linear, try photo.call("colourspace", "space=scrgb")))
        #expect(linear.bands == 3)
        let levels = source.map(Float.init)
        let curve = Self.largestError(try Self.floats(linear), levels) { _, level in
            let v = Double(level) / 255
            return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
        }
        #expect(curve <= 1e-4, "largest difference from sRGB's curve: \(curve)")

        // rgb16: the samples as they are, read as 16-bit sRGB afterwards (libvips narrows such
        // an image to 8 bits when converting it to sRGB; labelled sRGB, it would be left alone).
        let widened = try photo.linear(multipliers: [257], addends: [0]).cast(to: .ushort)
        let labelled = try widened.withInterpretation(.rgb16)
        #expect(try Self.same(labelled, try widened.call("copy", "interpretation=rgb16")))
        #expect(try Self.same(labelled, widened))
        let narrowed = try labelled.inColourSpace(.srgb)
        #expect(narrowed.isEightBit && narrowed.bands == 3)
        #expect(try Self.bytes(narrowed) == source)

        // 16-bit grey (PngSuite's) to 16-bit RGB, as HDR samples are widened: each level in
        // three bands.
        let grey = try VipsImageRef.load("pngload_buffer", data: try TestImages.data("pngsuite/basn0g16.png"))
        #expect(grey.bands == 1 && grey.isSixteenBit)
        let rgb16 = try grey.inColourSpace(.rgb16)
        #expect(try Self.same(rgb16, try grey.call("colourspace", "space=rgb16")))
        #expect(rgb16.bands == 3)
        let levelsOfGrey = try Self.shorts(grey)
        #expect(Set(levelsOfGrey).count > 100)
        #expect(try Self.shorts(rgb16) == levelsOfGrey.flatMap { [$0, $0, $0] })
    }

    /// Every mode, with the overlay at an offset and at the origin: libvips' `composite2`, the
    /// offsets written as the watermark wrote them and left out as the tint left them.
    @Test(arguments: VipsImageRef.BlendMode.allCases)
    func blendingIsLibvipsCompositeInEveryMode(mode: VipsImageRef.BlendMode) throws {
        let base = try Self.photo().withAlpha()
        // Another part of the photo, a third transparent.
        let overlay = try Self.photo(x: 400, y: 60, width: 24, height: 16).withAlpha()
            .linear(multipliers: [1, 1, 1, 0], addends: [0, 0, 0, 170]).cast(to: .uchar)
        let names = ("base", "overlay")
        let placed = try base.blending(overlay, mode: mode, x: 20, y: -5)
        #expect(try Self.same(placed, try base.call("composite2", with: overlay, names: names, "mode=\(mode.rawValue),x=20,y=-5")))
        #expect(placed.width == 64 && placed.height == 48 && placed.bands == 4)
        let atOrigin = try base.blending(overlay, mode: mode)
        #expect(try Self.same(atOrigin, try base.call("composite2", with: overlay, names: names, "mode=\(mode.rawValue)")))
    }

    /// An opaque overlay drawn over the photo: its own pixels where it lies, the photo's
    /// elsewhere, an opaque alpha added to the photo first.
    @Test func anOpaqueOverlayOverThePhotoIsItsPixelsWhereItLies() throws {
        let photo = try Self.photo()
        let overlay = try Self.photo(x: 400, y: 60, width: 24, height: 16).withAlpha()
        let drawn = try photo.composited(with: overlay, mode: .over)
        #expect(try Self.same(drawn, try photo.withAlpha().blending(overlay, mode: .over)))
        let placed = try photo.withAlpha().blending(overlay, mode: .over, x: 30, y: 20)
        let (ours, base, mark) = (try Self.bytes(placed), try Self.bytes(photo.withAlpha()), try Self.bytes(overlay))
        /// The RGBA pixel at (`x`, `y`) of a `width`-pixel-wide image's bytes.
        func pixel(_ bytes: [UInt8], _ x: Int, _ y: Int, width: Int) -> ArraySlice<UInt8> {
            bytes[(y * width + x) * 4..<(y * width + x + 1) * 4]
        }
        var wrong = 0
        for y in 0..<48 {
            for x in 0..<64 {
                let inside = (30..<54).contains(x) && (20..<36).contains(y)
                let expected = inside ? pixel(mark, x - 30, y - 20, width: 24) : pixel(base, x, y, width: 64)
                if !pixel(ours, x, y, width: 64).elementsEqual(expected) { wrong += 1 }
            }
        }
        #expect(wrong == 0, "\(wrong) pixels neither the overlay's nor the photo's")
    }
}
