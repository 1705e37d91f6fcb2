import Foundation

/// sRGB's transfer function, as BlurHash's reference code applies it (the hash averages light,
/// so it works on linear values).
enum SRGBTransfer {
    /// Linear light, 0...1, of each 8-bit sRGB value: a table, as every pixel needs three.
    static let linear: [Double] = (0...255).map { SDRColourCodes.srgbToLinear(Double($0) / 255) }

    /// The 8-bit sRGB value of linear light `value` (clamped to 0...1), rounded as the reference
    /// rounds it (`Int(x + 0.5)`).
    static func encoded(_ value: Double) -> Int {
        let v = min(1, max(0, value.isNaN ? 0 : value))
        return Int(SDRColourCodes.linearToSRGB(v) * 255 + 0.5)
    }
}
