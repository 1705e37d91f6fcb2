import WebImage

extension ProcessingOptions {
    /// The processing asked for as one string, for result cache keys: every option declared
    /// as changing the result (`OptionTable.imgproxy`), in the table's order, under its long
    /// name, with its arguments spelt one way; left out when at a value that does nothing.
    /// The configuration's quality (as each written format's `format_quality`, unless the URL
    /// gives a `quality`) and metadata defaults are in it; what decides whether or how a result
    /// is served (`expires`, `filename`, `return_attachment`, the limits) is not.
    /// The output format chosen by `Accept` is not in it either: see `OutputFormatPlan.cacheKey`.
    /// A key, not a URL; read back as the options part of one (same configuration, no presets,
    /// security options allowed), it gives the same processing and the same form (the `canonical`
    /// fuzz target holds that).
    public var canonicalForm: String {
        OptionTable.imgproxy.canonicalForm(of: self)
    }

    // MARK: Spellings: one for each value, so that equal processing gives equal keys
    /// An integer without decimals, anything else in Swift's shortest round-trip form.
    static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return String(value)
    }

    static func flag(_ value: Bool) -> String { value ? "1" : "0" }

    /// `rrggbb`, or `rrggbbaa` when not opaque.
    static func hex(_ colour: RGBA8) -> String {
        let bytes = colour.alpha == 255 ? [colour.red, colour.green, colour.blue] : [colour.red, colour.green, colour.blue, colour.alpha]
        return bytes.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    }

    /// imgproxy's name for a format (`jpeg`, `png`, `webp`, ...).
    static func name(_ format: ImageFormat) -> String { format.description }

    /// A gravity as imgproxy writes it: `ce:0:0`, `noea:10:0.25`, `fp:0.5:0.5`, `sm`, `obj:face`.
    static func gravity(_ gravity: ImageGravity) -> [String] {
        // imgproxy reads 1 and more as pixels, less as a fraction: values set in code against
        // that rule are marked, so that no two gravities print alike.
        func offset(_ offset: ImageGravity.Offset) -> String {
            switch offset {
            case .points(let value): number(value) + (value != 0 && abs(value) < 1 ? "px" : "")
            case .fraction(let value): number(value) + (value != 0 && abs(value) < 1 ? "" : "f")
            }
        }
        switch gravity {
        case let .anchor(anchor, x, y): return [GravityNames.name(of: anchor), offset(x), offset(y)]
        case let .focusPoint(x, y): return ["fp", number(x), number(y)]
        case .smart: return ["sm"]
        case .faces: return ["obj", "face"]
        }
    }
}
