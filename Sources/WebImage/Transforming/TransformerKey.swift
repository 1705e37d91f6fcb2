import Foundation

/// How transformer keys print their parameters, fixed so that a key never depends on the
/// locale or on float noise: SDWebImage's formats.
enum TransformerKey {
    private static let posix = Locale(identifier: "en_US_POSIX")

    /// `%f`: six decimals, a point; noise below the sixth decimal and negative zero vanish.
    static func number(_ value: Double) -> String {
        let rounded = (value * 1_000_000).rounded() / 1_000_000
        return String(format: "%f", locale: posix, rounded == 0 ? 0 : rounded)
    }

    /// `1` or `0`.
    static func flag(_ value: Bool) -> String { value ? "1" : "0" }

    /// `#aarrggbb`, lowercase, as SDWebImage's `sd_hexString` (nil prints `(null)`, as there).
    static func colour(_ colour: RGBA8?) -> String {
        guard let colour else { return "(null)" }
        let value = UInt32(colour.alpha) << 24 | UInt32(colour.red) << 16 | UInt32(colour.green) << 8 | UInt32(colour.blue)
        let hex = String(value, radix: 16)
        return "#" + String(repeating: "0", count: 8 - hex.count) + hex
    }
}
