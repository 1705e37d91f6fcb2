import Foundation
import WebImage

/// The `--transform` syntax: steps separated by `;`, each `name=arguments` with arguments
/// separated by `,`, turned into a `PipelineTransformer`.
///
///     resize=300x200[,fill|fit|cover]   crop=X,Y,W,H          round=R[,BORDER,COLOUR]
///     flip=h|v|hv                       rotate=DEGREES[,fit]  (counter-clockwise)
///     tint=COLOUR[,MODE]                blur=RADIUS           filter=OPERATION[,ARG=VALUE...]
///     watermark=FILE[,OPACITY[,POSITION[,X[,Y[,SCALE]]]]]     (imgproxy's `watermark`)
///     blur-faces=SIGMA                  (the faces OpenCV's cascades find, blurred: imgproxy Pro's `blur_detections`)
///
/// Colours are `#rrggbb`, `#rrggbbaa` or black, white, red, green, blue, clear; tint modes are
/// the blend modes' names (`normal`, `multiply`, `sourceIn`, ...).
enum TransformChain {
    /// A step that cannot be read, named with the reason.
    struct SyntaxError: Error, CustomStringConvertible {
        let step: String
        let reason: String
        var description: String { "--transform: bad step '\(step)': \(reason)" }
    }

    static func parse(_ text: String) throws(SyntaxError) -> PipelineTransformer {
        let steps = text.split(separator: ";", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard !text.isEmpty else { throw SyntaxError(step: text, reason: "no steps") }
        var transformers: [any ImageTransformer] = []
        for step in steps {
            transformers.append(try transformer(step))
        }
        return PipelineTransformer(transformers: transformers)
    }

    private static func transformer(_ step: String) throws(SyntaxError) -> any ImageTransformer {
        func fail(_ reason: String) -> SyntaxError { SyntaxError(step: step, reason: reason) }
        guard let equals = step.firstIndex(of: "=") else { throw fail("expected name=arguments") }
        let name = step[..<equals].lowercased()
        let value = String(step[step.index(after: equals)...])
        let arguments = value.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        func number(_ index: Int) throws(SyntaxError) -> Double {
            guard index < arguments.count, let number = Double(arguments[index]), number.isFinite else {
                throw fail("argument \(index + 1) is not a number")
            }
            return number
        }
        func count(_ allowed: ClosedRange<Int>) throws(SyntaxError) {
            guard allowed.contains(arguments.count) else { throw fail("takes \(allowed.lowerBound == allowed.upperBound ? "\(allowed.lowerBound)" : "\(allowed.lowerBound) to \(allowed.upperBound)") arguments") }
        }
        switch name {
        case "resize":
            try count(1...2)
            let sides = arguments[0].lowercased().split(separator: "x").compactMap { Double($0) }
            guard sides.count == 2, sides.allSatisfy({ $0 > 0 && $0.isFinite }) else { throw fail("size must be WIDTHxHEIGHT") }
            let modes: [String: ResizingTransformer.ScaleMode] = ["fill": .fill, "fit": .aspectFit, "cover": .aspectFill]
            guard let mode = modes[arguments.count > 1 ? arguments[1].lowercased() : "fill"] else { throw fail("mode must be fill, fit or cover") }
            return ResizingTransformer(size: CGSize(width: sides[0], height: sides[1]), scaleMode: mode)
        case "crop":
            try count(4...4)
            let rect = CGRect(x: try number(0), y: try number(1), width: try number(2), height: try number(3))
            guard rect.width > 0, rect.height > 0 else { throw fail("width and height must be positive") }
            return CroppingTransformer(rect: rect)
        case "round":
            guard arguments.count == 1 || arguments.count == 3 else { throw fail("takes RADIUS or RADIUS,BORDER,COLOUR") }
            let radius = try number(0)
            guard radius >= 0 else { throw fail("the radius must not be negative") }
            guard arguments.count == 3 else { return RoundCornerTransformer(radius: radius) }
            guard let colour = colour(arguments[2]) else { throw fail("unknown colour '\(arguments[2])'") }
            return RoundCornerTransformer(radius: radius, borderWidth: max(0, try number(1)), borderColor: colour)
        case "flip":
            try count(1...1)
            let axes = arguments[0].lowercased()
            guard ["h", "v", "hv", "vh"].contains(axes) else { throw fail("flip takes h, v or hv") }
            return FlippingTransformer(horizontal: axes.contains("h"), vertical: axes.contains("v"))
        case "rotate":
            try count(1...2)
            guard arguments.count == 1 || arguments[1].lowercased() == "fit" else { throw fail("the second argument can only be 'fit'") }
            return RotationTransformer(angle: try number(0) * .pi / 180, fitSize: arguments.count == 2)
        case "tint":
            try count(1...2)
            guard let colour = colour(arguments[0]) else { throw fail("unknown colour '\(arguments[0])'") }
            guard arguments.count == 2 else { return TintTransformer(color: colour) }
            guard let mode = TintTransformer.BlendMode.allCases.first(where: { "\($0)".lowercased() == arguments[1].lowercased() }) else {
                throw fail("unknown blend mode '\(arguments[1])'")
            }
            return TintTransformer(color: colour, blendMode: mode)
        case "blur":
            try count(1...1)
            let radius = try number(0)
            guard radius >= 0 else { throw fail("the radius must not be negative") }
            return BlurTransformer(radius: radius)
        case "blur-faces":
            try count(1...1)
            let sigma = try number(0)
            guard sigma >= 0 else { throw fail("the sigma must not be negative") }
            return FaceBlurTransformer(sigma: sigma)
        case "filter":
            guard let operation = arguments.first, !operation.isEmpty, operation.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
                throw fail("filter takes a libvips operation name")
            }
            return FilterTransformer(operation: operation, arguments: arguments.dropFirst().joined(separator: ","))
        case "watermark":
            return try watermark(arguments, fail: fail)
        default:
            throw fail("unknown transform '\(name)'")
        }
    }

    /// imgproxy's positions: its gravities, and `re` (tiled).
    static let watermarkAnchors: [String: ImageGravity.Anchor] = [
        "ce": .center, "no": .north, "so": .south, "ea": .east, "we": .west,
        "noea": .northEast, "nowe": .northWest, "soea": .southEast, "sowe": .southWest,
    ]

    /// `FILE[,OPACITY[,POSITION[,X[,Y[,SCALE]]]]]`, as imgproxy's `wm` reads them: opacity 0...1
    /// (1), a position (`ce`), offsets in pixels from 1 on and fractions of the image's side
    /// below (gaps between the marks for `re`), the mark's size as a fraction of the image's
    /// (0: its own). The file is decoded here, once.
    private static func watermark(_ arguments: [String], fail: (String) -> SyntaxError) throws(SyntaxError) -> WatermarkTransformer {
        guard (1...6).contains(arguments.count), !arguments[0].isEmpty else { throw fail("takes FILE[,OPACITY[,POSITION[,X[,Y[,SCALE]]]]]") }
        func number(_ index: Int, _ default: Double) throws(SyntaxError) -> Double {
            guard index < arguments.count, !arguments[index].isEmpty else { return `default` }
            guard let value = Double(arguments[index]), value.isFinite else { throw fail("argument \(index + 1) is not a number") }
            return value
        }
        func offset(_ value: Double) -> ImageGravity.Offset { abs(value) >= 1 || value == 0 ? .points(value) : .fraction(value) }
        let opacity = try number(1, 1)
        guard (0...1).contains(opacity) else { throw fail("the opacity is in 0...1") }
        let (x, y, scale) = (offset(try number(3, 0)), offset(try number(4, 0)), try number(5, 0))
        guard scale >= 0 else { throw fail("the scale must not be negative") }
        let name = arguments.count > 2 && !arguments[2].isEmpty ? arguments[2].lowercased() : "ce"
        let position: WatermarkTransformer.Position
        if name == "re" {
            position = .tiled(horizontalSpacing: x, verticalSpacing: y)
        } else if let anchor = watermarkAnchors[name] {
            position = .gravity(.anchor(anchor, x: x, y: y))
        } else {
            throw fail("unknown position '\(arguments[2])' (ce, no, so, ea, we, noea, nowe, soea, sowe, re)")
        }
        let mark: Image
        do {
            mark = try ImageCodersManager.shared.decode(try Data(contentsOf: URL(fileURLWithPath: arguments[0])), options: ImageCoderOptions())
        } catch {
            throw fail("cannot read the mark \(arguments[0]): \(error)")
        }
        return WatermarkTransformer(mark: mark, opacity: opacity, position: position, scale: scale)
    }

    /// `#rrggbb`, `#rrggbbaa` or a few names.
    static func colour(_ text: String) -> RGBA8? {
        let names: [String: RGBA8] = [
            "black": .black, "white": .white, "clear": .clear, "red": RGBA8(red: 255, green: 0, blue: 0),
            "green": RGBA8(red: 0, green: 255, blue: 0), "blue": RGBA8(red: 0, green: 0, blue: 255),
        ]
        if let named = names[text.lowercased()] { return named }
        let hex = text.hasPrefix("#") ? text.dropFirst() : Substring(text)
        guard hex.count == 6 || hex.count == 8, let value = UInt32(hex, radix: 16) else { return nil }
        let rgba = hex.count == 6 ? value << 8 | 0xFF : value
        return RGBA8(red: UInt8(rgba >> 24), green: UInt8(rgba >> 16 & 0xFF), blue: UInt8(rgba >> 8 & 0xFF), alpha: UInt8(rgba & 0xFF))
    }
}
