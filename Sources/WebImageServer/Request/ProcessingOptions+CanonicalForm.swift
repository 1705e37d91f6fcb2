import WebImage

extension ProcessingOptions {
    /// The processing asked for as one string, for result cache keys: options in a fixed order
    /// under their long names, each with its arguments spelt one way, every value that changes
    /// the result's pixels or bytes included (the configuration's quality and metadata
    /// defaults among them) and nothing else (`expires`, `filename`, `return_attachment`,
    /// the limits: they decide whether a result is made, not what it is). The output format
    /// chosen by `Accept` is not in it: see `OutputFormatPlan.cacheKey`.
    /// A key, not a URL: it is not meant to be parsed back.
    public var canonicalForm: String {
        var parts: [String] = []
        func add(_ name: String, _ arguments: [String]) {
            parts.append(([name] + arguments).joined(separator: ":"))
        }
        let defaults = ProcessingOptions()
        if let trim {
            add("trim", [Self.number(trim.threshold), trim.color.map(Self.hex) ?? "", Self.flag(trim.equalHorizontal), Self.flag(trim.equalVertical)])
        }
        if let crop {
            add("crop", [Self.number(crop.width), Self.number(crop.height)] + (crop.gravity.map(Self.gravity) ?? []))
        }
        add("resizing_type", [resizingType.rawValue])
        add("size", [String(width), String(height)])
        if minWidth != 0 || minHeight != 0 { add("min_size", [String(minWidth), String(minHeight)]) }
        if zoomWidth != 1 || zoomHeight != 1 { add("zoom", [Self.number(zoomWidth), Self.number(zoomHeight)]) }
        if dpr != 1 { add("dpr", [Self.number(dpr)]) }
        if enlarge { add("enlarge", ["1"]) }
        if extend { add("extend", ["1"] + Self.gravity(extendGravity)) }
        if gravity != defaults.gravity { add("gravity", Self.gravity(gravity)) }
        add("auto_rotate", [Self.flag(autoRotate)])
        if rotate != 0 { add("rotate", [String(rotate)]) }
        if flipHorizontal || flipVertical { add("flip", [Self.flag(flipHorizontal), Self.flag(flipVertical)]) }
        if blur != 0 { add("blur", [Self.number(blur)]) }
        if sharpen != 0 { add("sharpen", [Self.number(sharpen)]) }
        if pixelate > 1 { add("pixelate", [String(pixelate)]) }
        if !padding.isEmpty { add("padding", [padding.top, padding.right, padding.bottom, padding.left].map(String.init)) }
        if roundCorners != 0 { add("round_corners", [Self.number(roundCorners)]) }
        if let background { add("background", [Self.hex(background)]) }
        if let format { add("format", [Self.name(format)]) }
        if quality > 0 {
            add("quality", [String(quality)])
        } else {
            add("quality", [String(defaultQuality)])
            let table = formatQuality.map { (Self.name($0.key), $0.value) }.sorted { $0.0 < $1.0 }
            if !table.isEmpty { add("format_quality", table.flatMap { [$0.0, String($0.1)] }) }
        }
        if maxBytes > 0 { add("max_bytes", [String(maxBytes)]) }
        add("strip_metadata", [Self.flag(stripMetadata)])
        if !skipProcessingFormats.isEmpty { add("skip_processing", skipProcessingFormats.map(Self.name).sorted()) }
        if raw { add("raw", ["1"]) }
        if let cacheBuster { add("cachebuster", [cacheBuster]) }
        // One frame only is a different result; the other limits only refuse.
        if maxAnimationFrames <= 1 { add("max_animation_frames", ["1"]) }
        return parts.joined(separator: "/")
    }

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

    /// A gravity as imgproxy writes it: `ce:0:0`, `noea:10:0.25`, `fp:0.5:0.5`, `sm`.
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
        }
    }
}
