import WebImage

extension OptionTable {
    /// imgproxy's processing options as its `options/parser` reads them (names, aliases,
    /// argument rules), with this server's `round_corners`. The order is `canonicalForm`'s.
    static let imgproxy = OptionTable([
        .shorthand(
            "resize", aliases: ["rs"], arguments: "type:width:height:enlarge:extend:gravity:x:y", example: "fill:300:200",
            apply: { reader, options, _ throws(ImageServerError) in
                try reader.atMost(8)
                if let type = reader.given(0) { options.resizingType = try reader.resizingType(type) }
                if reader.arguments.count > 1 { try size(reader, reader.arguments.dropFirst(), &options) }
            }
        ),
        .shorthand(
            "size", aliases: ["s"], arguments: "width:height:enlarge:extend:gravity:x:y", example: "300:200",
            apply: { reader, options, _ throws(ImageServerError) in try size(reader, reader.arguments[...], &options) }
        ),
        .result(
            "trim", aliases: ["t"], arguments: "threshold:colour:equal_hor:equal_ver", example: "10:ff00ff:1:0", default: .arguments(""),
            apply: whole(\.trim, ArgumentReader.trim),
            canonical: { options in
                options.trim.map { trim in
                    [
                        ProcessingOptions.number(trim.threshold), trim.color.map(ProcessingOptions.hex) ?? "",
                        ProcessingOptions.flag(trim.equalHorizontal), ProcessingOptions.flag(trim.equalVertical),
                    ]
                }
            }
        ),
        .result(
            "crop", aliases: ["c"], arguments: "width:height:gravity:x:y", example: "100:200", default: .arguments("0:0"),
            apply: whole(\.crop, ArgumentReader.crop),
            canonical: { options in
                options.crop.map { crop in
                    [ProcessingOptions.number(crop.width), ProcessingOptions.number(crop.height)] + (crop.gravity.map(ProcessingOptions.gravity) ?? [])
                }
            }
        ),
        .result(
            "resizing_type", aliases: ["rt"], arguments: "fit, fill, fill-down, force or auto", example: "fill", default: .arguments("fit"),
            apply: single(\.resizingType, ArgumentReader.resizingType),
            canonical: { [$0.resizingType.rawValue] }
        ),
        .result(
            "width", aliases: ["w"], arguments: "pixels, 0 or more", example: "300", default: .arguments("0"),
            apply: single(\.width, ArgumentReader.count),
            canonical: { [String($0.width)] }
        ),
        .result(
            "height", aliases: ["h"], arguments: "pixels, 0 or more", example: "200", default: .arguments("0"),
            apply: single(\.height, ArgumentReader.count),
            canonical: { [String($0.height)] }
        ),
        .result(
            "min-width", aliases: ["mw"], arguments: "pixels, 0 or more", example: "100", default: .arguments("0"),
            apply: single(\.minWidth, ArgumentReader.count),
            canonical: { $0.minWidth == 0 ? nil : [String($0.minWidth)] }
        ),
        .result(
            "min-height", aliases: ["mh"], arguments: "pixels, 0 or more", example: "100", default: .arguments("0"),
            apply: single(\.minHeight, ArgumentReader.count),
            canonical: { $0.minHeight == 0 ? nil : [String($0.minHeight)] }
        ),
        .result(
            "zoom", aliases: ["z"], arguments: "x:y, above 0 (y defaults to x)", example: "1.5", default: .arguments("1"),
            apply: { reader, options, _ throws(ImageServerError) in
                try reader.atMost(2)
                options.zoomWidth = try reader.positive(try reader.argument(at: 0))
                options.zoomHeight = try reader.given(1).map(reader.positive) ?? options.zoomWidth
            },
            canonical: { options in
                options.zoomWidth == 1 && options.zoomHeight == 1
                    ? nil : [ProcessingOptions.number(options.zoomWidth), ProcessingOptions.number(options.zoomHeight)]
            }
        ),
        .result(
            "dpr", arguments: "a ratio above 0", example: "2", default: .arguments("1"),
            apply: single(\.dpr, ArgumentReader.positive),
            canonical: { $0.dpr == 1 ? nil : [ProcessingOptions.number($0.dpr)] }
        ),
        .result(
            "enlarge", aliases: ["el"], arguments: "boolean", example: "1", default: .arguments("0"),
            apply: single(\.enlarge, ArgumentReader.bool),
            canonical: { $0.enlarge ? ["1"] : nil }
        ),
        .result(
            "extend", aliases: ["ex"], arguments: "enabled:gravity:x:y", example: "1:so", default: .arguments("0"),
            apply: { reader, options, _ throws(ImageServerError) in try extend(reader, reader.arguments[...], &options) },
            canonical: { $0.extend ? ["1"] + ProcessingOptions.gravity($0.extendGravity) : nil }
        ),
        .result(
            "extend_aspect_ratio", aliases: ["extend_ar", "exar"], arguments: "enabled:gravity:x:y", example: "1:so", default: .arguments("0"),
            apply: { reader, options, _ throws(ImageServerError) in
                try extend(reader, reader.arguments[...], &options, enabled: \.extendAspectRatio, gravity: \.extendAspectRatioGravity)
            },
            canonical: { $0.extendAspectRatio ? ["1"] + ProcessingOptions.gravity($0.extendAspectRatioGravity) : nil }
        ),
        .result(
            "gravity", aliases: ["g"], arguments: "type:x:y, sm, obj:face or fp:x:y", example: "sm", default: .arguments("ce:0:0"),
            apply: { reader, options, _ throws(ImageServerError) in
                options.gravity = try reader.gravity(reader.arguments[...], allowsSmart: true)
            },
            canonical: { $0.gravity == ProcessingOptions().gravity ? nil : ProcessingOptions.gravity($0.gravity) }
        ),
        .result(
            "auto_rotate", aliases: ["ar"], arguments: "boolean", example: "0", default: .setting("AUTO_ROTATE"),
            apply: single(\.autoRotate, ArgumentReader.bool),
            canonical: { [ProcessingOptions.flag($0.autoRotate)] }
        ),
        .result(
            "rotate", aliases: ["rot"], arguments: "degrees clockwise, a multiple of 90", example: "90", default: .arguments("0"),
            apply: { reader, options, _ throws(ImageServerError) in
                let angle = try reader.int(try reader.single())
                guard angle % 90 == 0 else { throw reader.fail("the angle must be a multiple of 90") }
                options.rotate = (angle % 360 + 360) % 360
            },
            canonical: { $0.rotate == 0 ? nil : [String($0.rotate)] }
        ),
        .result(
            "flip", aliases: ["fl"], arguments: "horizontal:vertical", example: "1:0", default: .arguments("0:0"),
            apply: { reader, options, _ throws(ImageServerError) in
                try reader.atMost(2)
                if let horizontal = reader.given(0) { options.flipHorizontal = try reader.bool(horizontal) }
                if let vertical = reader.given(1) { options.flipVertical = try reader.bool(vertical) }
            },
            canonical: { options in
                options.flipHorizontal || options.flipVertical
                    ? [ProcessingOptions.flag(options.flipHorizontal), ProcessingOptions.flag(options.flipVertical)] : nil
            }
        ),
        .result(
            "blur", aliases: ["bl"], arguments: "sigma", example: "2", default: .arguments("0"),
            apply: single(\.blur, ArgumentReader.amount),
            canonical: { $0.blur == 0 ? nil : [ProcessingOptions.number($0.blur)] }
        ),
        .result(
            "sharpen", aliases: ["sh"], arguments: "sigma", example: "0.7", default: .arguments("0"),
            apply: single(\.sharpen, ArgumentReader.amount),
            canonical: { $0.sharpen == 0 ? nil : [ProcessingOptions.number($0.sharpen)] }
        ),
        .result(
            "pixelate", aliases: ["pix"], arguments: "block size in pixels", example: "8", default: .arguments("0"),
            apply: single(\.pixelate, ArgumentReader.count),
            // Blocks of 1 pixel leave the image as it is.
            canonical: { $0.pixelate > 1 ? [String($0.pixelate)] : nil }
        ),
        // imgproxy Pro's; after the resize, on the result's pixels (docs/faces.md).
        .result(
            "blur_detections", aliases: ["bd"], arguments: "sigma:face", example: "10:face", default: .arguments("0:face"),
            apply: { reader, options, _ throws(ImageServerError) in
                options.blurDetections = try reader.amount(try reader.argument(at: 0))
                try reader.faceClass(reader.arguments.dropFirst())
            },
            canonical: { $0.blurDetections == 0 ? nil : [ProcessingOptions.number($0.blurDetections), "face"] }
        ),
        .result(
            "draw_detections", aliases: ["dd"], arguments: "draw:face", example: "1:face", default: .arguments("0:face"),
            apply: { reader, options, _ throws(ImageServerError) in
                options.drawDetections = try reader.bool(try reader.argument(at: 0))
                try reader.faceClass(reader.arguments.dropFirst())
            },
            canonical: { $0.drawDetections ? ["1", "face"] : nil }
        ),
        .result(
            "padding", aliases: ["pd"], arguments: "top:right:bottom:left", example: "10", default: .arguments("0"),
            apply: { reader, options, _ throws(ImageServerError) in options.padding = try reader.padding(replacing: options.padding) },
            canonical: { options in
                let padding = options.padding
                return padding.isEmpty ? nil : [padding.top, padding.right, padding.bottom, padding.left].map(String.init)
            }
        ),
        .result(
            "round_corners", aliases: ["rc"], arguments: "radius", example: "12", default: .arguments("0"),
            apply: single(\.roundCorners, ArgumentReader.amount),
            canonical: { $0.roundCorners == 0 ? nil : [ProcessingOptions.number($0.roundCorners)] }
        ),
        .result(
            "background", aliases: ["bg"], arguments: "rrggbb, rgb or r:g:b; empty for none", example: "ff0000", default: .arguments(""),
            apply: whole(\.background, ArgumentReader.background),
            canonical: { $0.background.map { [ProcessingOptions.hex($0)] } }
        ),
        // MARK: Watermark
        .result(
            "watermark", aliases: ["wm"], arguments: "opacity:position:x:y:scale", example: "0.5:soea:10:10:0.2", default: .arguments("0"),
            apply: { reader, options, _ throws(ImageServerError) in options.watermark = try watermark(reader, replacing: options.watermark) },
            canonical: { options in
                let mark = options.watermark
                guard mark.opacity > 0 else { return nil }
                let position = switch mark.position {
                case .anchor(let anchor): GravityNames.name(of: anchor)
                case .tiled: "re"
                }
                let arguments = [ProcessingOptions.number(mark.opacity), position, ProcessingOptions.number(mark.x), ProcessingOptions.number(mark.y)]
                return mark.scale > 0 ? arguments + [ProcessingOptions.number(mark.scale)] : arguments
            }
        ),
        .result(
            "format", aliases: ["f", "ext"], arguments: "jpeg, png, webp, avif, gif, heic, heif, jxl or tiff", example: "webp", default: .none,
            apply: { reader, options, _ throws(ImageServerError) in options.format = try reader.format(try reader.single()) },
            canonical: { $0.format.map { [ProcessingOptions.name($0)] } }
        ),
        .result(
            "quality", aliases: ["q"], arguments: "0...100 (0: format_quality, then QUALITY)", example: "75", default: .arguments("0"),
            apply: single(\.quality, ArgumentReader.quality),
            // The URL's quality, for every format; without one, `format_quality` writes each
            // format's (a `quality` would override them when the form is read back).
            canonical: { $0.quality > 0 ? [String($0.quality)] : nil }
        ),
        .result(
            "format_quality", aliases: ["fq"], arguments: "format:quality:...", example: "webp:70", default: .setting("FORMAT_QUALITY"),
            apply: { reader, options, _ throws(ImageServerError) in
                guard reader.arguments.count % 2 == 0 else { throw reader.fail("formats and qualities come in pairs") }
                for index in stride(from: 0, to: reader.arguments.count, by: 2) {
                    let format = try reader.format(reader.arguments[index])
                    let quality = try reader.quality(reader.arguments[index + 1])
                    // 0 leaves the format to the general quality, as imgproxy's lookup skips it.
                    options.formatQuality[format] = quality > 0 ? quality : nil
                }
            },
            // A quality in the URL overrides every format's. Without one, the quality each
            // format the server writes is encoded at (its entry, else the configuration's
            // `QUALITY`): so the form holds the configured quality, and reads back as the same.
            canonical: { options in
                guard options.quality == 0 else { return nil }
                let entries = VipsImageCoder.encodableFormats.map { (ProcessingOptions.name($0), options.quality(for: $0)) }.sorted { $0.0 < $1.0 }
                return entries.flatMap { [$0.0, String($0.1)] }
            }
        ),
        .result(
            "max_bytes", aliases: ["mb"], arguments: "bytes, 0 for no limit", example: "5000", default: .arguments("0"),
            apply: single(\.maxBytes, ArgumentReader.count),
            canonical: { $0.maxBytes > 0 ? [String($0.maxBytes)] : nil }
        ),
        .result(
            "strip_metadata", aliases: ["sm"], arguments: "boolean", example: "0", default: .setting("STRIP_METADATA"),
            apply: single(\.stripMetadata, ArgumentReader.bool),
            canonical: { [ProcessingOptions.flag($0.stripMetadata)] }
        ),
        .result(
            "preserve_hdr", aliases: ["ph"], arguments: "boolean", example: "1", default: .setting("PRESERVE_HDR"),
            apply: single(\.preserveHDR, ArgumentReader.bool),
            canonical: { [ProcessingOptions.flag($0.preserveHDR)] }
        ),
        // MARK: Metadata kept, and the embedded thumbnail
        .result(
            "keep_copyright", aliases: ["kcr"], arguments: "boolean", example: "0", default: .setting("KEEP_COPYRIGHT"),
            apply: single(\.keepCopyright, ArgumentReader.bool),
            // Only stripping has a copyright to keep.
            canonical: { $0.stripMetadata ? [ProcessingOptions.flag($0.keepCopyright)] : nil }
        ),
        .result(
            "strip_color_profile", aliases: ["scp"], arguments: "boolean", example: "0", default: .setting("STRIP_COLOR_PROFILE"),
            apply: single(\.stripColorProfile, ArgumentReader.bool),
            canonical: { [ProcessingOptions.flag($0.stripColorProfile)] }
        ),
        .result(
            "enforce_thumbnail", aliases: ["eth"], arguments: "boolean", example: "1", default: .setting("ENFORCE_THUMBNAIL"),
            apply: single(\.enforceThumbnail, ArgumentReader.bool),
            canonical: { [ProcessingOptions.flag($0.enforceThumbnail)] }
        ),
        .result(
            "skip_processing", aliases: ["skp"], arguments: "formats", example: "png", default: .setting("SKIP_PROCESSING_FORMATS"),
            apply: { reader, options, _ throws(ImageServerError) in
                for name in reader.arguments { options.skipProcessingFormats.insert(try reader.format(name)) }
            },
            canonical: { $0.skipProcessingFormats.isEmpty ? nil : $0.skipProcessingFormats.map(ProcessingOptions.name).sorted() }
        ),
        .result(
            "raw", arguments: "boolean", example: "1", default: .arguments("0"),
            apply: single(\.raw, ArgumentReader.bool),
            canonical: { $0.raw ? ["1"] : nil }
        ),
        // Changes the key and nothing else: that is what it is for.
        .result(
            "cachebuster", aliases: ["cb"], arguments: "text", example: "v2", default: .arguments(""),
            apply: { reader, options, _ throws(ImageServerError) in
                let value = try reader.single()
                options.cacheBuster = value.isEmpty ? nil : value
            },
            canonical: { $0.cacheBuster.map { [$0] } }
        ),
        // A limit that makes the result: an animation's first frames only (1: a still). Always
        // in the form, as the configuration's default may change under a kept result.
        .result(
            "max_animation_frames", aliases: ["maf"], arguments: "frames, 1 or more", example: "1", default: .setting("MAX_ANIMATION_FRAMES"),
            isSecurityOption: true,
            apply: { reader, options, _ throws(ImageServerError) in
                let frames = try reader.count(try reader.single())
                guard frames > 0 else { throw reader.fail("at least 1 frame") }
                options.maxAnimationFrames = frames
            },
            canonical: { [String($0.maxAnimationFrames)] }
        ),
        .handling(
            "expires", aliases: ["exp"], arguments: "unix time, 0 for never", example: "4102444800", default: .arguments("0"),
            apply: { reader, options, context throws(ImageServerError) in
                let text = try reader.single()
                guard let time = Int64(text) else { throw reader.fail("\(text) is not a unix time") }
                if ProcessingOptions.hasExpired(time, at: context.now) { throw .expired }
                options.expires = time > 0 ? time : nil
            }
        ),
        .handling(
            "filename", aliases: ["fn"], arguments: "name:encoded", example: "photo", default: .arguments(""),
            apply: whole(\.filename, ArgumentReader.filename)
        ),
        .handling(
            "return_attachment", aliases: ["att"], arguments: "boolean", example: "1", default: .arguments("0"),
            apply: single(\.returnAttachment, ArgumentReader.bool)
        ),
        .shorthand(
            "preset", aliases: ["pr"], arguments: "names", example: "thumbnail",
            apply: { reader, options, context throws(ImageServerError) in
                for name in reader.arguments { try context.applyPreset(name, reader, to: &options) }
            }
        ),
        .handling(
            "max_src_resolution", aliases: ["msr"], arguments: "megapixels", example: "12.5", default: .setting("MAX_SRC_RESOLUTION"),
            isSecurityOption: true,
            apply: single(\.maxSourceResolution, ArgumentReader.megapixels)
        ),
        .handling(
            "max_src_file_size", aliases: ["msfs"], arguments: "bytes, 0 for no limit", example: "1000000", default: .setting("MAX_SRC_FILE_SIZE"),
            isSecurityOption: true,
            apply: single(\.maxSourceFileSize, ArgumentReader.count)
        ),
        .handling(
            "max_animation_frame_resolution", aliases: ["mafr"], arguments: "megapixels, 0 for off", example: "1",
            default: .setting("MAX_ANIMATION_FRAME_RESOLUTION"),
            isSecurityOption: true,
            apply: single(\.maxAnimationFrameResolution, ArgumentReader.megapixels)
        ),
        // A limit, but one the result is shrunk to fit (imgproxy since 3.29): a different result.
        .result(
            "max_result_dimension", aliases: ["mrd"], arguments: "pixels, 0 for no limit", example: "500", default: .setting("MAX_RESULT_DIMENSION"),
            isSecurityOption: true,
            apply: single(\.maxResultDimension, ArgumentReader.count),
            // Always written, 0 too: a form without it would read back as MAX_RESULT_DIMENSION.
            canonical: { [String($0.maxResultDimension)] }
        ),
    ])

    // MARK: Reading

    /// Sets `field` from the only argument, read by `read`.
    private static func single<Value>(
        _ field: WritableKeyPath<ProcessingOptions, Value> & Sendable,
        _ read: @escaping @Sendable (ArgumentReader) -> (String) throws(ImageServerError) -> Value
    ) -> OptionDeclaration.Apply {
        { reader, options, _ throws(ImageServerError) in options[keyPath: field] = try read(reader)(try reader.single()) }
    }

    /// Sets `field` from all the arguments, read by `read`.
    private static func whole<Value>(
        _ field: WritableKeyPath<ProcessingOptions, Value> & Sendable,
        _ read: @escaping @Sendable (ArgumentReader) -> () throws(ImageServerError) -> Value
    ) -> OptionDeclaration.Apply {
        { reader, options, _ throws(ImageServerError) in options[keyPath: field] = try read(reader)() }
    }

    /// `width:height:enlarge:extend...` (`size`, and the tail of `resize`); empty arguments
    /// leave their fields as they were.
    private static func size(_ reader: ArgumentReader, _ arguments: ArraySlice<String>, _ options: inout ProcessingOptions) throws(ImageServerError) {
        guard arguments.count <= 7 else { throw reader.fail("at most 7 size arguments") }
        let values = Array(arguments)
        if values.count > 0, !values[0].isEmpty { options.width = try reader.count(values[0]) }
        if values.count > 1, !values[1].isEmpty { options.height = try reader.count(values[1]) }
        if values.count > 2, !values[2].isEmpty { options.enlarge = try reader.bool(values[2]) }
        if values.count > 3, !values[3].isEmpty { try extend(reader, arguments.dropFirst(3), &options) }
    }

    /// `opacity:position:x:y:scale` (imgproxy's `wm`): the opacity given, 0...1; empty or missing
    /// arguments leave their fields as they were. Up to 7 arguments, as imgproxy's parser
    /// (the last two are Pro's; ignored, as there).
    private static func watermark(_ reader: ArgumentReader, replacing current: ProcessingOptions.Watermark) throws(ImageServerError) -> ProcessingOptions.Watermark {
        try reader.atMost(7)
        var mark = current
        let opacity = try reader.number(try reader.argument(at: 0))
        guard (0...1).contains(opacity) else { throw reader.fail("the opacity \(opacity) is not in 0...1") }
        mark.opacity = opacity
        if let position = reader.given(1) {
            if position == "re" {
                mark.position = .tiled
            } else if let anchor = GravityNames.anchors[position] {
                mark.position = .anchor(anchor)
            } else {
                throw reader.fail("\(position) is not a watermark position (ce, no, so, ea, we, noea, nowe, soea, sowe, re)")
            }
        }
        if let x = reader.given(2) { mark.x = try reader.number(x) }
        if let y = reader.given(3) { mark.y = try reader.number(y) }
        if let scale = reader.given(4) { mark.scale = try reader.positive(scale) }
        return mark
    }

    /// `enabled:gravity...` (`extend`, the tail of `size`, and `extend_aspect_ratio` into its
    /// own fields); no smart gravity.
    private static func extend(
        _ reader: ArgumentReader, _ arguments: ArraySlice<String>, _ options: inout ProcessingOptions,
        enabled: WritableKeyPath<ProcessingOptions, Bool> = \.extend, gravity: WritableKeyPath<ProcessingOptions, ImageGravity> = \.extendGravity
    ) throws(ImageServerError) {
        guard let first = arguments.first, arguments.count <= 4 else { throw reader.fail("expected enabled, then at most a gravity") }
        options[keyPath: enabled] = try reader.bool(first)
        if arguments.count > 1 { options[keyPath: gravity] = try reader.gravity(arguments.dropFirst(), allowsSmart: false) }
    }
}
