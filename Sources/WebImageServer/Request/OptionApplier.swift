import Foundation
import WebImage

/// Applies imgproxy's processing options, one at a time, to a `ProcessingOptions`: names,
/// aliases and argument rules as imgproxy's `options/parser` has them (400 naming the option
/// for anything else).
struct OptionApplier: Sendable {
    let presets: Presets
    let allowSecurityOptions: Bool

    /// Applies `option`; `presetChain` holds the presets being expanded (a preset met again
    /// inside itself is skipped, as imgproxy does).
    func apply(_ option: RawOption, to options: inout ProcessingOptions, now: Date, presetChain: [String] = []) throws(ImageServerError) {
        let reader = ArgumentReader(option)
        switch option.name {
        case "resize", "rs": try resize(reader, &options)
        case "size", "s": try size(reader, reader.arguments[...], &options)
        case "resizing_type", "rt": options.resizingType = try resizingType(reader, try reader.single())
        case "width", "w": options.width = try reader.count(try reader.single())
        case "height", "h": options.height = try reader.count(try reader.single())
        case "min-width", "mw": options.minWidth = try reader.count(try reader.single())
        case "min-height", "mh": options.minHeight = try reader.count(try reader.single())
        case "zoom", "z":
            try reader.atMost(2)
            options.zoomWidth = try reader.positive(reader.arguments[0])
            options.zoomHeight = try reader.arguments.count > 1 ? reader.positive(reader.arguments[1]) : options.zoomWidth
        case "dpr": options.dpr = try reader.positive(try reader.single())
        case "enlarge", "el": options.enlarge = try reader.bool(try reader.single())
        case "extend", "ex": try extend(reader, reader.arguments[...], &options)
        case "gravity", "g": options.gravity = try reader.gravity(reader.arguments[...], allowsSmart: true)
        case "crop", "c": try crop(reader, &options)
        case "trim", "t": try trim(reader, &options)
        case "padding", "pd": try padding(reader, &options)
        case "auto_rotate", "ar": options.autoRotate = try reader.bool(try reader.single())
        case "rotate", "rot":
            let angle = try reader.int(try reader.single())
            guard angle % 90 == 0 else { throw reader.fail("the angle must be a multiple of 90") }
            options.rotate = (angle % 360 + 360) % 360
        case "flip", "fl":
            try reader.atMost(2)
            if let horizontal = reader.given(0) { options.flipHorizontal = try reader.bool(horizontal) }
            if let vertical = reader.given(1) { options.flipVertical = try reader.bool(vertical) }
        case "background", "bg": options.background = try background(reader)
        case "blur", "bl": options.blur = try reader.amount(try reader.single())
        case "sharpen", "sh": options.sharpen = try reader.amount(try reader.single())
        case "pixelate", "pix": options.pixelate = try reader.count(try reader.single())
        case "round_corners", "rc": options.roundCorners = try reader.amount(try reader.single())
        default: try applyOutputOrHandling(option, reader, &options, now: now, presetChain: presetChain)
        }
    }

    private func applyOutputOrHandling(
        _ option: RawOption, _ reader: ArgumentReader, _ options: inout ProcessingOptions, now: Date, presetChain: [String]
    ) throws(ImageServerError) {
        switch option.name {
        case "quality", "q": options.quality = try reader.quality(try reader.single())
        case "format_quality", "fq":
            guard reader.arguments.count % 2 == 0 else { throw reader.fail("formats and qualities come in pairs") }
            for index in stride(from: 0, to: reader.arguments.count, by: 2) {
                let format = try reader.format(reader.arguments[index])
                let quality = try reader.quality(reader.arguments[index + 1])
                // 0 leaves the format to the general quality, as imgproxy's lookup skips it.
                options.formatQuality[format] = quality > 0 ? quality : nil
            }
        case "max_bytes", "mb": options.maxBytes = try reader.count(try reader.single())
        case "format", "f", "ext": options.format = try reader.format(try reader.single())
        case "strip_metadata", "sm": options.stripMetadata = try reader.bool(try reader.single())
        case "skip_processing", "skp":
            for name in reader.arguments { options.skipProcessingFormats.insert(try reader.format(name)) }
        case "raw": options.raw = try reader.bool(try reader.single())
        case "cachebuster", "cb":
            let value = try reader.single()
            options.cacheBuster = value.isEmpty ? nil : value
        case "expires", "exp":
            guard let time = Int64(try reader.single()) else { throw reader.fail("\(reader.arguments[0]) is not a unix time") }
            if time > 0, Double(time) < now.timeIntervalSince1970 { throw .expired }
            options.expires = time > 0 ? time : nil
        case "filename", "fn": options.filename = try filename(reader)
        case "return_attachment", "att": options.returnAttachment = try reader.bool(try reader.single())
        case "preset", "pr":
            for name in reader.arguments {
                try applyPreset(name, reader, &options, now: now, presetChain: presetChain)
            }
        default: try applySecurity(option, reader, &options)
        }
    }

    /// The security options: only when the configuration allows them (else 403).
    private func applySecurity(_ option: RawOption, _ reader: ArgumentReader, _ options: inout ProcessingOptions) throws(ImageServerError) {
        let names = [
            "max_src_resolution", "msr", "max_src_file_size", "msfs", "max_animation_frames", "maf",
            "max_animation_frame_resolution", "mafr", "max_result_dimension", "mrd",
        ]
        guard names.contains(option.name) else { throw .unknownOption(option.name) }
        guard allowSecurityOptions else { throw .securityOptionNotAllowed(option.name) }
        let value = try reader.single()
        switch option.name {
        case "max_src_resolution", "msr": options.maxSourceResolution = try megapixels(reader, value)
        case "max_src_file_size", "msfs": options.maxSourceFileSize = try reader.count(value)
        case "max_animation_frames", "maf":
            let frames = try reader.count(value)
            guard frames > 0 else { throw reader.fail("at least 1 frame") }
            options.maxAnimationFrames = frames
        case "max_animation_frame_resolution", "mafr": options.maxAnimationFrameResolution = try megapixels(reader, value)
        default: options.maxResultDimension = try reader.count(value)
        }
    }

    private func applyPreset(
        _ name: String, _ reader: ArgumentReader, _ options: inout ProcessingOptions, now: Date, presetChain: [String]
    ) throws(ImageServerError) {
        guard let preset = presets.options[name] else { throw reader.fail("no preset named \(name)") }
        guard !presetChain.contains(name) else { return }
        for option in preset {
            try apply(option, to: &options, now: now, presetChain: presetChain + [name])
        }
    }

    // MARK: Arguments of several parts

    private func resizingType(_ reader: ArgumentReader, _ text: String) throws(ImageServerError) -> ProcessingOptions.ResizingType {
        guard let type = ProcessingOptions.ResizingType(rawValue: text) else {
            throw reader.fail("\(text) is not a resizing type (fit, fill, fill-down, force, auto)")
        }
        return type
    }

    /// `resize:type:width:height:enlarge:extend...`.
    private func resize(_ reader: ArgumentReader, _ options: inout ProcessingOptions) throws(ImageServerError) {
        try reader.atMost(8)
        if let type = reader.given(0) { options.resizingType = try resizingType(reader, type) }
        if reader.arguments.count > 1 { try size(reader, reader.arguments.dropFirst(), &options) }
    }

    /// `size:width:height:enlarge:extend...` (also the tail of `resize`).
    private func size(_ reader: ArgumentReader, _ arguments: ArraySlice<String>, _ options: inout ProcessingOptions) throws(ImageServerError) {
        guard arguments.count <= 7 else { throw reader.fail("at most 7 size arguments") }
        let values = Array(arguments)
        if values.count > 0, !values[0].isEmpty { options.width = try reader.count(values[0]) }
        if values.count > 1, !values[1].isEmpty { options.height = try reader.count(values[1]) }
        if values.count > 2, !values[2].isEmpty { options.enlarge = try reader.bool(values[2]) }
        if values.count > 3, !values[3].isEmpty { try extend(reader, arguments.dropFirst(3), &options) }
    }

    /// `extend:enabled:gravity...` (no smart gravity).
    private func extend(_ reader: ArgumentReader, _ arguments: ArraySlice<String>, _ options: inout ProcessingOptions) throws(ImageServerError) {
        guard let enabled = arguments.first, arguments.count <= 4 else { throw reader.fail("extend takes enabled and a gravity") }
        options.extend = try reader.bool(enabled)
        if arguments.count > 1 { options.extendGravity = try reader.gravity(arguments.dropFirst(), allowsSmart: false) }
    }

    /// `crop:width:height:gravity...`.
    private func crop(_ reader: ArgumentReader, _ options: inout ProcessingOptions) throws(ImageServerError) {
        let width = try reader.amount(reader.arguments[0])
        let height = try reader.arguments.count > 1 ? reader.amount(reader.arguments[1]) : 0
        let gravity = try reader.arguments.count > 2 ? reader.gravity(reader.arguments.dropFirst(2), allowsSmart: true) : nil
        options.crop = width == 0 && height == 0 ? nil : ProcessingOptions.Crop(width: width, height: height, gravity: gravity)
    }

    /// `trim:threshold:colour:equal_hor:equal_ver`; an empty threshold turns trimming off.
    private func trim(_ reader: ArgumentReader, _ options: inout ProcessingOptions) throws(ImageServerError) {
        try reader.atMost(4)
        guard let threshold = reader.given(0) else {
            options.trim = nil
            return
        }
        var trim = ProcessingOptions.Trim(threshold: try reader.number(threshold))
        if let colour = reader.given(1) { trim.color = try reader.hexColor(colour) }
        if let horizontal = reader.given(2) { trim.equalHorizontal = try reader.bool(horizontal) }
        if let vertical = reader.given(3) { trim.equalVertical = try reader.bool(vertical) }
        options.trim = trim
    }

    /// `padding:top:right:bottom:left`, CSS's shorthand.
    private func padding(_ reader: ArgumentReader, _ options: inout ProcessingOptions) throws(ImageServerError) {
        try reader.atMost(4)
        var padding = options.padding
        if let top = reader.given(0) { padding.top = try reader.count(top) }
        padding.right = try reader.given(1).map(reader.count) ?? padding.top
        padding.bottom = try reader.given(2).map(reader.count) ?? padding.top
        padding.left = try reader.given(3).map(reader.count) ?? padding.right
        options.padding = padding
    }

    /// `background:rrggbb`, `background:r:g:b`, or `background:` (none).
    private func background(_ reader: ArgumentReader) throws(ImageServerError) -> RGBA8? {
        switch reader.arguments.count {
        case 1: return try reader.arguments[0].isEmpty ? nil : reader.hexColor(reader.arguments[0])
        case 3:
            var components: [UInt8] = []
            for text in reader.arguments {
                guard let value = UInt8(text) else { throw reader.fail("\(text) is not in 0...255") }
                components.append(value)
            }
            return RGBA8(red: components[0], green: components[1], blue: components[2])
        default: throw reader.fail("a hex colour or red, green and blue")
        }
    }

    /// `filename:name:encoded`: the name, or URL-safe base64 of it when `encoded` is true.
    private func filename(_ reader: ArgumentReader) throws(ImageServerError) -> String? {
        try reader.atMost(2)
        let name = reader.arguments[0]
        guard let encoded = reader.given(1), try reader.bool(encoded) else { return name.isEmpty ? nil : name }
        guard let bytes = Base64URL.decode(name), let decoded = String(bytes: bytes, encoding: .utf8) else {
            throw reader.fail("not URL-safe base64 of a UTF-8 name")
        }
        return decoded
    }

    /// Megapixels (a number, 0 or more) in pixels.
    private func megapixels(_ reader: ArgumentReader, _ text: String) throws(ImageServerError) -> Int {
        let value = try reader.amount(text)
        guard value < 1e12 else { throw reader.fail("\(text) megapixels is too many") }
        return Int(value * 1_000_000)
    }
}
