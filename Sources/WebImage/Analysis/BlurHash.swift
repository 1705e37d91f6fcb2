import Foundation

/// A BlurHash (blurha.sh): an image's few lowest DCT components in linear light, as a short
/// base 83 string, that decodes to a blurred placeholder of any size.
///
/// Written from the reference encoder and decoder (Wolt's `blurhash`, and its Python port on
/// PyPI): the same quantisation, so a hash decodes the same with either.
public struct BlurHash: Sendable, Hashable, CustomStringConvertible {
    /// The hash as text.
    public let string: String
    /// Components across (1...9).
    public let xComponents: Int
    /// Components down (1...9).
    public let yComponents: Int
    /// Each component's linear RGB, row by row (`xComponents` a row); the first is the average.
    let colours: [(red: Double, green: Double, blue: Double)]

    /// Parses and checks `string`: its length must match the component counts in its first
    /// digit, and every value must be one an encoder writes.
    public init(_ string: String) throws(ImageAnalysisError) {
        let bytes = Array(string.utf8)
        guard bytes.count >= 6 else { throw .invalidBlurHash(reason: "\(bytes.count) characters, at least 6 needed") }
        guard let sizeFlag = Base83.decode(bytes[0..<1]) else { throw .invalidBlurHash(reason: "not base 83") }
        // One digit reaches 82, but 9x9 components is 80: the last two would say 10 down.
        guard sizeFlag <= 80 else { throw .invalidBlurHash(reason: "more than 9 components down") }
        let (x, y) = (sizeFlag % 9 + 1, sizeFlag / 9 + 1)
        guard bytes.count == 4 + 2 * x * y else {
            throw .invalidBlurHash(reason: "\(bytes.count) characters, \(4 + 2 * x * y) for \(x)x\(y) components")
        }
        guard let quantisedMaximum = Base83.decode(bytes[1..<2]), let dc = Base83.decode(bytes[2..<6]) else {
            throw .invalidBlurHash(reason: "not base 83")
        }
        // Four digits hold more than 24 bits and two more than 19^3 values: no encoder writes those.
        guard dc <= 0xFF_FFFF else { throw .invalidBlurHash(reason: "average colour out of range") }
        let maximum = Double(quantisedMaximum + 1) / 166
        var colours = [(SRGBTransfer.linear[dc >> 16], SRGBTransfer.linear[(dc >> 8) & 255], SRGBTransfer.linear[dc & 255])]
        colours.reserveCapacity(x * y)
        func component(_ quantised: Int) -> Double {
            let value = (Double(quantised) - 9) / 9
            return (value < 0 ? -1 : 1) * value * value * maximum
        }
        for index in 1..<(x * y) {
            guard let ac = Base83.decode(bytes[(4 + 2 * index)..<(6 + 2 * index)]) else { throw .invalidBlurHash(reason: "not base 83") }
            guard ac < 19 * 19 * 19 else { throw .invalidBlurHash(reason: "component \(index) out of range") }
            colours.append((component(ac / (19 * 19)), component((ac / 19) % 19), component(ac % 19)))
        }
        self.string = string
        xComponents = x
        yComponents = y
        self.colours = colours
    }

    public var description: String { string }

    public static func == (lhs: BlurHash, rhs: BlurHash) -> Bool { lhs.string == rhs.string }
    public func hash(into hasher: inout Hasher) { hasher.combine(string) }

    /// The average colour the hash holds (its first component), opaque.
    public var averageColor: RGBA8 {
        let dc = colours[0]
        return RGBA8(
            red: UInt8(SRGBTransfer.encoded(dc.red)), green: UInt8(SRGBTransfer.encoded(dc.green)),
            blue: UInt8(SRGBTransfer.encoded(dc.blue))
        )
    }

    /// The hash of `width` x `height` RGBA8 pixels (alpha is ignored, as the reference ignores it).
    static func encode(rgba: [UInt8], width: Int, height: Int, xComponents: Int, yComponents: Int) throws(ImageAnalysisError) -> BlurHash {
        guard (1...9).contains(xComponents), (1...9).contains(yComponents) else {
            throw .componentCountOutOfRange(x: xComponents, y: yComponents)
        }
        let (nx, ny) = (xComponents, yComponents)
        // The cosines are separable: sum each row against the x cosines once, then the rows
        // against the y cosines (w*h*nx + h*nx*ny products in place of w*h*nx*ny).
        let cosX = (0..<nx).map { i in (0..<width).map { x in cos(Double.pi * Double(i) * Double(x) / Double(width)) } }
        let cosY = (0..<ny).map { j in (0..<height).map { y in cos(Double.pi * Double(j) * Double(y) / Double(height)) } }
        var rowSums = [Double](repeating: 0, count: height * nx * 3)
        let linear = SRGBTransfer.linear
        for y in 0..<height {
            for x in 0..<width {
                let offset = (y * width + x) * 4
                let (r, g, b) = (linear[Int(rgba[offset])], linear[Int(rgba[offset + 1])], linear[Int(rgba[offset + 2])])
                for i in 0..<nx {
                    let basis = cosX[i][x]
                    let sum = (y * nx + i) * 3
                    rowSums[sum] += basis * r
                    rowSums[sum + 1] += basis * g
                    rowSums[sum + 2] += basis * b
                }
            }
        }
        var components: [(red: Double, green: Double, blue: Double)] = []
        let pixelCount = Double(width * height)
        for j in 0..<ny {
            for i in 0..<nx {
                let normalisation = (i == 0 && j == 0 ? 1.0 : 2.0) / pixelCount
                var component = (red: 0.0, green: 0.0, blue: 0.0)
                for y in 0..<height {
                    let sum = (y * nx + i) * 3
                    let basis = cosY[j][y]
                    component.red += basis * rowSums[sum]
                    component.green += basis * rowSums[sum + 1]
                    component.blue += basis * rowSums[sum + 2]
                }
                components.append((component.red * normalisation, component.green * normalisation, component.blue * normalisation))
            }
        }
        var output: [UInt8] = []
        Base83.encode((nx - 1) + (ny - 1) * 9, length: 1, into: &output)
        let maximumAC = components.dropFirst().reduce(0.0) { max($0, abs($1.red), abs($1.green), abs($1.blue)) }
        let quantisedMaximum = components.count > 1 ? Int(max(0, min(82, (maximumAC * 166 - 0.5).rounded(.down)))) : 0
        Base83.encode(quantisedMaximum, length: 1, into: &output)
        let dc = components[0]
        Base83.encode(
            (SRGBTransfer.encoded(dc.red) << 16) + (SRGBTransfer.encoded(dc.green) << 8) + SRGBTransfer.encoded(dc.blue),
            length: 4, into: &output
        )
        let maximum = Double(quantisedMaximum + 1) / 166
        func quantised(_ value: Double) -> Int {
            let root = (value < 0 ? -1 : 1) * (abs(value) / maximum).squareRoot()
            return Int(max(0, min(18, (root * 9 + 9.5).rounded(.down))))
        }
        for component in components.dropFirst() {
            Base83.encode(quantised(component.red) * 19 * 19 + quantised(component.green) * 19 + quantised(component.blue), length: 2, into: &output)
        }
        // Only base 83 digits were written: the parse cannot fail.
        return try BlurHash(String(decoding: output, as: UTF8.self))
    }

    /// The placeholder's RGBA8 pixels at `width` x `height`, opaque; `punch` scales the
    /// components' contrast (1: as encoded).
    func decode(width: Int, height: Int, punch: Double = 1) -> [UInt8] {
        let (nx, ny) = (xComponents, yComponents)
        let cosX = (0..<nx).map { i in (0..<width).map { x in cos(Double.pi * Double(x) * Double(i) / Double(width)) } }
        let cosY = (0..<ny).map { j in (0..<height).map { y in cos(Double.pi * Double(y) * Double(j) / Double(height)) } }
        let scaled: [(red: Double, green: Double, blue: Double)] = colours.enumerated().map { index, colour in
            index == 0 ? colour : (colour.red * punch, colour.green * punch, colour.blue * punch)
        }
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        var row = [Double](repeating: 0, count: nx * 3)
        for y in 0..<height {
            // The y cosines folded into each column's colour once a row.
            for i in 0..<nx {
                var sum = (0.0, 0.0, 0.0)
                for j in 0..<ny {
                    let colour = scaled[i + j * nx]
                    let basis = cosY[j][y]
                    sum.0 += colour.red * basis
                    sum.1 += colour.green * basis
                    sum.2 += colour.blue * basis
                }
                (row[i * 3], row[i * 3 + 1], row[i * 3 + 2]) = sum
            }
            for x in 0..<width {
                var pixel = (0.0, 0.0, 0.0)
                for i in 0..<nx {
                    let basis = cosX[i][x]
                    pixel.0 += row[i * 3] * basis
                    pixel.1 += row[i * 3 + 1] * basis
                    pixel.2 += row[i * 3 + 2] * basis
                }
                let offset = (y * width + x) * 4
                pixels[offset] = UInt8(SRGBTransfer.encoded(pixel.0))
                pixels[offset + 1] = UInt8(SRGBTransfer.encoded(pixel.1))
                pixels[offset + 2] = UInt8(SRGBTransfer.encoded(pixel.2))
            }
        }
        return pixels
    }
}

extension ImageAnalysis {
    /// The image's BlurHash with `xComponents` x `yComponents` components (each 1...9; 4x3 as
    /// the reference suggests for a landscape image).
    public func blurHash(xComponents: Int = 4, yComponents: Int = 3) throws(ImageAnalysisError) -> BlurHash {
        try BlurHash.encode(rgba: rgba, width: pixelWidth, height: pixelHeight, xComponents: xComponents, yComponents: yComponents)
    }
}
