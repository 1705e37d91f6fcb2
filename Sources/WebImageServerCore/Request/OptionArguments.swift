import Foundation
import WebImage

/// One processing option as written in a URL or a preset: `rs:fill:300:200` is `rs` with
/// `fill`, `300`, `200`.
struct RawOption: Sendable, Hashable {
    let name: String
    let arguments: [String]

    /// Splits path segments into the options that lead them and the segments after: the first
    /// segment without a `separator` (`ARGUMENTS_SEPARATOR`, `:`) starts the source (imgproxy's rule).
    static func leading(_ segments: [String], separator: String = ":") -> (options: [RawOption], rest: [String]) {
        var options: [RawOption] = []
        for (index, segment) in segments.enumerated() {
            let parts = separator == ":"
                ? segment.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
                : segment.components(separatedBy: separator)
            guard parts.count > 1 else { return (options, Array(segments[index...])) }
            options.append(RawOption(name: parts[0], arguments: Array(parts.dropFirst())))
        }
        return (options, [])
    }
}

/// Reads one option's arguments with imgproxy's rules, naming the option as written and the
/// arguments it takes in every error (400).
struct ArgumentReader: Sendable {
    let option: String
    let arguments: [String]
    /// The arguments the option takes, as its declaration documents them.
    let usage: String

    init(_ option: RawOption, usage: String) {
        self.option = option.name
        self.arguments = option.arguments
        self.usage = usage
    }

    func fail(_ reason: String) -> ImageServerError {
        .invalidOption(option, reason: "\(reason) (\(option) takes \(usage))")
    }

    /// Refuses more than `count` arguments.
    func atMost(_ count: Int) throws(ImageServerError) {
        if arguments.count > count { throw fail("at most \(count) arguments, got \(arguments.count)") }
    }

    /// The argument at `index` when present and not empty.
    func given(_ index: Int) -> String? {
        index < arguments.count && !arguments[index].isEmpty ? arguments[index] : nil
    }

    /// The argument at `index`, present though maybe empty.
    func argument(at index: Int) throws(ImageServerError) -> String {
        guard index < arguments.count else { throw fail("an argument is missing") }
        return arguments[index]
    }

    /// The only argument.
    func single() throws(ImageServerError) -> String {
        try atMost(1)
        return try argument(at: 0)
    }

    /// `1`, `t`, `true` or `0`, `f`, `false` (Go's ParseBool; imgproxy reads anything else as
    /// false, this server refuses it).
    func bool(_ text: String) throws(ImageServerError) -> Bool {
        switch text {
        case "1", "t", "T", "true", "TRUE", "True": return true
        case "0", "f", "F", "false", "FALSE", "False": return false
        default: throw fail("\(text) is not a boolean (1, 0, true, false)")
        }
    }

    func int(_ text: String) throws(ImageServerError) -> Int {
        guard let value = Int(text) else { throw fail("\(text) is not an integer") }
        return value
    }

    /// An integer, 0 or more.
    func count(_ text: String) throws(ImageServerError) -> Int {
        let value = try int(text)
        guard value >= 0 else { throw fail("\(text) is negative") }
        return value
    }

    /// A finite number.
    func number(_ text: String) throws(ImageServerError) -> Double {
        guard let value = Double(text), value.isFinite else { throw fail("\(text) is not a number") }
        return value
    }

    /// A number, 0 or more.
    func amount(_ text: String) throws(ImageServerError) -> Double {
        let value = try number(text)
        guard value >= 0 else { throw fail("\(text) is negative") }
        return value
    }

    /// A number above 0.
    func positive(_ text: String) throws(ImageServerError) -> Double {
        let value = try number(text)
        guard value > 0 else { throw fail("\(text) is not above 0") }
        return value
    }

    /// 0...100.
    func quality(_ text: String) throws(ImageServerError) -> Int {
        let value = try int(text)
        guard (0...100).contains(value) else { throw fail("\(text) is not in 0...100") }
        return value
    }

    /// `rgb` or `rrggbb` in hex, opaque.
    func hexColor(_ text: String) throws(ImageServerError) -> RGBA8 {
        guard text.count == 3 || text.count == 6, text.allSatisfy(\.isHexDigit),
              let value = UInt32(text, radix: 16)
        else { throw fail("\(text) is not a hex colour (rgb or rrggbb)") }
        if text.count == 3 {
            return RGBA8(red: UInt8((value >> 8) & 0xF) * 17, green: UInt8((value >> 4) & 0xF) * 17, blue: UInt8(value & 0xF) * 17)
        }
        return RGBA8(red: UInt8(value >> 16), green: UInt8((value >> 8) & 0xFF), blue: UInt8(value & 0xFF))
    }

    /// A format by imgproxy's name (`jpeg`, `jpg`, `png`, `webp`, `avif`, `gif`, ...).
    func format(_ text: String) throws(ImageServerError) -> ImageFormat {
        guard let format = FormatNames.format(named: text) else { throw fail("\(text) is not an image format") }
        return format
    }

    /// imgproxy's gravity: a compass word with optional x and y offsets, `fp:x:y` (0...1), or
    /// `sm` and imgproxy Pro's `obj:face` when `allowsSmart`.
    func gravity(_ arguments: ArraySlice<String>, allowsSmart: Bool) throws(ImageServerError) -> ImageGravity {
        guard let type = arguments.first else { throw fail("a gravity is missing") }
        let rest = Array(arguments.dropFirst())
        switch type {
        case "sm" where allowsSmart:
            guard rest.isEmpty else { throw fail("sm takes no offsets") }
            return .smart
        case "obj" where allowsSmart:
            try faceClass(rest[...])
            return .faces
        case "fp":
            guard rest.count == 2 else { throw fail("fp takes x and y") }
            let (x, y) = (try number(rest[0]), try number(rest[1]))
            guard (0...1).contains(x), (0...1).contains(y) else { throw fail("fp's x and y are in 0...1") }
            return .focusPoint(x: x, y: y)
        default:
            guard let anchor = GravityNames.anchors[type] else { throw fail("\(type) is not a gravity") }
            guard rest.count <= 2 else { throw fail("a gravity takes at most x and y offsets") }
            let x = try rest.count > 0 && !rest[0].isEmpty ? number(rest[0]) : 0
            let y = try rest.count > 1 && !rest[1].isEmpty ? number(rest[1]) : 0
            return .anchor(anchor, x: GravityNames.offset(x), y: GravityNames.offset(y))
        }
    }

    /// The object classes imgproxy Pro's `obj` gravity, `blur_detections` and `draw_detections`
    /// end with: Pro's come from its neural network; faces are the one class here (OpenCV's
    /// cascades), named once. Another class is refused by name.
    func faceClass(_ classes: ArraySlice<String>) throws(ImageServerError) {
        guard !classes.isEmpty else { throw fail("the class of objects to look for is missing: face") }
        if let other = classes.first(where: { $0 != "face" }) { throw fail("\(other) is not an object class known here: only face is") }
        guard classes.count == 1 else { throw fail("face is named once") }
    }

    // MARK: Arguments of several parts

    func resizingType(_ text: String) throws(ImageServerError) -> ProcessingOptions.ResizingType {
        guard let type = ProcessingOptions.ResizingType(rawValue: text) else {
            let types = ProcessingOptions.ResizingType.allCases.map(\.rawValue).joined(separator: ", ")
            throw fail("\(text) is not a resizing type (\(types))")
        }
        return type
    }

    /// `width:height:gravity...`; nil (no cut) when both sides are 0.
    func crop() throws(ImageServerError) -> ProcessingOptions.Crop? {
        let width = try amount(try argument(at: 0))
        let height = try arguments.count > 1 ? amount(arguments[1]) : 0
        let gravity = try arguments.count > 2 ? self.gravity(arguments.dropFirst(2), allowsSmart: true) : nil
        return width == 0 && height == 0 ? nil : ProcessingOptions.Crop(width: width, height: height, gravity: gravity)
    }

    /// `threshold:colour:equal_hor:equal_ver`; an empty threshold turns trimming off (nil).
    func trim() throws(ImageServerError) -> ProcessingOptions.Trim? {
        try atMost(4)
        guard let threshold = given(0) else { return nil }
        var trim = ProcessingOptions.Trim(threshold: try number(threshold))
        if let colour = given(1) { trim.color = try hexColor(colour) }
        if let horizontal = given(2) { trim.equalHorizontal = try bool(horizontal) }
        if let vertical = given(3) { trim.equalVertical = try bool(vertical) }
        return trim
    }

    /// `top:right:bottom:left`, CSS's shorthand; an empty top keeps `current`'s.
    func padding(replacing current: ProcessingOptions.Padding) throws(ImageServerError) -> ProcessingOptions.Padding {
        try atMost(4)
        var padding = current
        if let top = given(0) { padding.top = try count(top) }
        padding.right = try given(1).map(count) ?? padding.top
        padding.bottom = try given(2).map(count) ?? padding.top
        padding.left = try given(3).map(count) ?? padding.right
        return padding
    }

    /// `rrggbb`, `r:g:b`, or empty (none: nil).
    func background() throws(ImageServerError) -> RGBA8? {
        switch arguments.count {
        case 1: return try arguments[0].isEmpty ? nil : hexColor(arguments[0])
        case 3:
            var components: [UInt8] = []
            for text in arguments {
                guard let value = UInt8(text) else { throw fail("\(text) is not in 0...255") }
                components.append(value)
            }
            return RGBA8(red: components[0], green: components[1], blue: components[2])
        default: throw fail("a hex colour or red, green and blue")
        }
    }

    /// `name:encoded`: the name, or URL-safe base64 of it when `encoded` is true; nil when empty.
    func filename() throws(ImageServerError) -> String? {
        try atMost(2)
        let name = try argument(at: 0)
        guard let encoded = given(1), try bool(encoded) else { return name.isEmpty ? nil : name }
        guard let bytes = Base64URL.decode(name), let decoded = String(bytes: bytes, encoding: .utf8) else {
            throw fail("not URL-safe base64 of a UTF-8 name")
        }
        return decoded
    }

    /// Megapixels (a number, 0 or more) in pixels.
    func megapixels(_ text: String) throws(ImageServerError) -> Int {
        let value = try amount(text)
        guard value < 1e12 else { throw fail("\(text) megapixels is too many") }
        return Int(value * 1_000_000)
    }
}

/// imgproxy's gravity words.
enum GravityNames {
    static let anchors: [String: ImageGravity.Anchor] = [
        "ce": .center, "no": .north, "so": .south, "ea": .east, "we": .west,
        "noea": .northEast, "nowe": .northWest, "soea": .southEast, "sowe": .southWest,
    ]

    static func name(of anchor: ImageGravity.Anchor) -> String {
        anchors.first { $0.value == anchor }?.key ?? "ce"
    }

    /// An offset as imgproxy reads it: 1 and more (or -1 and less) in pixels, a fraction of
    /// the side below; 0 is no offset.
    static func offset(_ value: Double) -> ImageGravity.Offset {
        abs(value) >= 1 || value == 0 ? .points(value) : .fraction(value)
    }
}
