import Foundation
import WebImage

/// One request's pipeline in imgproxy's fixed order, whatever the order in the URL
/// (`processing/processing.go`): trim, shrink-on-load, orientation, crop, resize, crop to
/// the result, filters, extend, extend to the aspect ratio, padding, round corners, size fix,
/// flatten, watermark. The options see the image upright and turned by `rotate`; the decoder sees it upright.
struct ProcessingSteps {
    let header: ImageHeader
    let options: ProcessingOptions
    let format: ImageFormat
    let animated: Bool
    /// The decode's time budget, less what reading the header took.
    let budget: DecodeTimeBudget
    let coders: ImageCodersManager
    /// The mark `watermark` draws; nil: none configured.
    let watermark: WatermarkMark?

    /// The image decoded and transformed up to the result's size, not encoded, and what `dpr`
    /// became (`ResizeGeometry.dprScale`).
    func run(_ data: Data) throws(ImageServerError) -> (image: Image, dprScale: Double) {
        let isVector = SourceInspection.isVector(header)
        var image: Image
        let geometry: ResizeGeometry
        if let trim = options.trim, !animated, !isVector {
            // Trimming looks at every pixel: no shrink-on-load (as imgproxy).
            image = try decode(data, box: nil)
            image = try apply(
                TrimmingTransformer(threshold: trim.threshold, color: trim.color, equalHorizontal: trim.equalHorizontal, equalVertical: trim.equalVertical),
                to: image
            )
            let size = framed(width: image.pixelWidth, height: image.pixelHeight)
            geometry = ResizeGeometry(width: size.width, height: size.height, isVector: false, options: options)
        } else {
            let size = sourceSize(isVector: isVector)
            geometry = ResizeGeometry(width: size.width, height: size.height, isVector: isVector, options: options)
            image = try decode(data, box: loadBox(geometry, natural: framed(width: header.pixelWidth, height: header.pixelHeight)))
        }
        for transformer in orientation() { image = try apply(transformer, to: image) }
        image = try crop(image, geometry)
        if image.pixelWidth != geometry.scaledWidth || image.pixelHeight != geometry.scaledHeight {
            let size = CGSize(width: geometry.scaledWidth, height: geometry.scaledHeight)
            image = try apply(ResizingTransformer(size: size, scaleMode: .fill), to: image)
        }
        for transformer in afterResize(geometry) { image = try apply(transformer, to: image) }
        return (image, geometry.dprScale)
    }

    /// The result's last steps: brought within the format's largest side, and flattened when
    /// a background is asked for or the format has no alpha.
    func finish(_ image: Image) throws(ImageServerError) -> Image {
        var image = image
        let limit = OutputFormatPlan.largestSide(of: format)
        let side = max(image.pixelWidth, image.pixelHeight)
        if side > limit {
            let scale = Double(limit) / Double(side)
            let size = CGSize(width: max(1, (Double(image.pixelWidth) * scale).rounded()), height: max(1, (Double(image.pixelHeight) * scale).rounded()))
            image = try apply(ResizingTransformer(size: size, scaleMode: .fill), to: image)
        }
        if image.hasAlpha, options.background != nil || !OutputFormatPlan.holdsAlpha(format) {
            image = try apply(FlatteningTransformer(background: options.background ?? .white), to: image)
        }
        return image
    }

    /// The mark drawn over the finished result, last (imgproxy's order), on every frame; its
    /// pixel offsets times `dprScale`.
    func watermarked(_ image: Image, dprScale: Double) throws(ImageServerError) -> Image {
        guard let transformer = watermark?.transformer(for: options, dprScale: dprScale) else { return image }
        return try apply(transformer, to: image)
    }

    // MARK: Sizes

    /// True when the options' frame is the decoder's turned a quarter: by `rotate`, or by an
    /// EXIF orientation left unapplied (`auto_rotate:0`).
    private var turnsQuarter: Bool {
        let unappliedTurn = !options.autoRotate && header.orientation >= 5
        return unappliedTurn != (options.rotate % 180 == 90)
    }

    /// An upright size in the options' frame.
    private func framed(width: Int, height: Int) -> (width: Int, height: Int) {
        turnsQuarter ? (height, width) : (width, height)
    }

    /// The source's size in the options' frame; a vector source larger than
    /// `maxSourceResolution` counts as drawn down to it (imgproxy's `vectorGuardScale`).
    private func sourceSize(isVector: Bool) -> (width: Int, height: Int) {
        let size = framed(width: header.pixelWidth, height: header.pixelHeight)
        let pixels = Double(size.width) * Double(size.height)
        guard isVector, pixels > Double(options.maxSourceResolution), options.maxSourceResolution > 0 else { return size }
        let shrink = (pixels / Double(options.maxSourceResolution)).squareRoot()
        return (max(1, Int((Double(size.width) / shrink).rounded())), max(1, Int((Double(size.height) / shrink).rounded())))
    }

    /// The size to decode at (upright), shrunk on load as far as the resize allows: to the
    /// resized size, or, when cropping first, to the source scaled by the resize; nil for
    /// the natural size.
    private func loadBox(_ geometry: ResizeGeometry, natural: (width: Int, height: Int)) -> (width: Int, height: Int)? {
        var box: (width: Int, height: Int)
        if geometry.cropWidth > 0 || geometry.cropHeight > 0 {
            box = (ResizeGeometry.scaled(geometry.sourceWidth, min(1, geometry.widthScale)),
                   ResizeGeometry.scaled(geometry.sourceHeight, min(1, geometry.heightScale)))
        } else {
            box = (min(geometry.scaledWidth, geometry.sourceWidth), min(geometry.scaledHeight, geometry.sourceHeight))
        }
        box = (max(1, box.width), max(1, box.height))
        guard box.width < natural.width || box.height < natural.height else { return nil }
        return turnsQuarter ? (box.height, box.width) : box
    }

    // MARK: Decoding

    /// The source as a lazy image, at `box` (stretched to it) when given; the limits passed
    /// on to the decoder as a second guard.
    private func decode(_ data: Data, box: (width: Int, height: Int)?) throws(ImageServerError) -> Image {
        var decoding = ImageCoderOptions()
        decoding.decodeUseLazyDecoding = true
        decoding.decodeFirstFrameOnly = !animated
        decoding.decodeFrameLimit = max(1, options.maxAnimationFrames)
        decoding.decodePreserveAspectRatio = false
        decoding.decodeEmbeddedThumbnail = options.enforceThumbnail
        decoding.decodeTimeBudget = budget
        // Only a format that holds HDR needs it kept: for the others the decoder tone maps.
        decoding.decodeToHDR = options.preserveHDR && format.holdsHighDynamicRange
        if let box { decoding.decodeThumbnailPixelSize = CGSize(width: box.width, height: box.height) }
        if SourceInspection.isVector(header) {
            // Drawn at the box, within the resolution limit (`sourceSize`), whatever the file says.
            decoding.decodeMaxPixelCount = .max
            decoding.decodeMaxTotalPixelCount = .max
        } else {
            let perFrame = animated && options.maxAnimationFrameResolution > 0
            decoding.decodeMaxPixelCount = max(1, perFrame ? options.maxAnimationFrameResolution : options.maxSourceResolution)
            decoding.decodeMaxFrameCount = .max
            decoding.decodeMaxTotalPixelCount = animated && !perFrame ? options.maxSourceResolution : .max
        }
        do {
            return try coders.decode(data, options: decoding)
        } catch {
            throw SourceInspection.mapped(error)
        }
    }

    // MARK: Transformers

    /// `transformer` applied; a transformer that cannot apply means a source that cannot be
    /// decoded (or a result past the library's 100-megapixel bound).
    private func apply(_ transformer: any ImageTransformer, to image: Image) throws(ImageServerError) -> Image {
        guard let result = transformer.transformedImage(with: image, forKey: "") else {
            throw .unreadableSource("\(transformer.transformerKey) could not be applied")
        }
        return result
    }

    /// The EXIF orientation undone when `auto_rotate` is off (the decoder applies it), then
    /// `rotate` (clockwise) and `flip`.
    private func orientation() -> [any ImageTransformer] {
        var transformers: [any ImageTransformer] = []
        if !options.autoRotate {
            let quarter = Double.pi / 2
            switch header.orientation {
            case 2: transformers = [FlippingTransformer(horizontal: true, vertical: false)]
            case 3: transformers = [RotationTransformer(angle: 2 * quarter, fitSize: true)]
            case 4: transformers = [FlippingTransformer(horizontal: false, vertical: true)]
            case 5: transformers = [RotationTransformer(angle: -quarter, fitSize: true), FlippingTransformer(horizontal: true, vertical: false)]
            case 6: transformers = [RotationTransformer(angle: quarter, fitSize: true)]
            case 7: transformers = [RotationTransformer(angle: -quarter, fitSize: true), FlippingTransformer(horizontal: false, vertical: true)]
            case 8: transformers = [RotationTransformer(angle: -quarter, fitSize: true)]
            default: break
            }
        }
        if options.rotate != 0 {
            transformers.append(RotationTransformer(angle: -Double(options.rotate) * .pi / 180, fitSize: true))
        }
        if options.flipHorizontal || options.flipVertical {
            transformers.append(FlippingTransformer(horizontal: options.flipHorizontal, vertical: options.flipVertical))
        }
        return transformers
    }

    /// The `crop` option, on the image as decoded: its size and pixel offsets shrunk as the
    /// image was on load (imgproxy adjusts them the same way).
    private func crop(_ image: Image, _ geometry: ResizeGeometry) throws(ImageServerError) -> Image {
        guard geometry.cropWidth > 0 || geometry.cropHeight > 0 else { return image }
        let widthShrink = Double(geometry.sourceWidth) / Double(image.pixelWidth)
        let heightShrink = Double(geometry.sourceHeight) / Double(image.pixelHeight)
        func side(_ crop: Int, _ shrink: Double) -> Double {
            crop == 0 ? 0 : max(1, (Double(crop) / shrink).rounded())
        }
        let size = CGSize(width: side(geometry.cropWidth, widthShrink), height: side(geometry.cropHeight, heightShrink))
        let gravity = Self.scaled(options.crop?.gravity ?? options.gravity, width: 1 / widthShrink, height: 1 / heightShrink)
        return try apply(cropping(size, gravity), to: image)
    }

    /// The cut of `size` placed by `gravity`; around the faces the configuration's detector
    /// finds for `.faces`.
    private func cropping(_ size: CGSize, _ gravity: ImageGravity) -> any ImageTransformer {
        gravity == .faces ? FaceCroppingTransformer(size: size, detector: options.faceDetector) : GravityCroppingTransformer(size: size, gravity: gravity)
    }

    /// The steps after the resize, each only when it changes the image: a plain fit or fill
    /// whose result is the resized image goes from the decoder to the encoder as it is (the
    /// library's thumbnail job).
    private func afterResize(_ geometry: ResizeGeometry) -> [any ImageTransformer] {
        let dpr = geometry.dprScale
        var transformers: [any ImageTransformer] = []
        if geometry.cutsResult {
            let size = CGSize(width: geometry.resultCropWidth, height: geometry.resultCropHeight)
            transformers.append(cropping(size, Self.scaled(options.gravity, width: dpr, height: dpr)))
        }
        // Faces are looked for once, in the result's pixels before the blur of the faces and
        // the filters change them: the outlines are drawn where the blur went.
        let faces = RememberingFaceDetector(options.faceDetector)
        if options.blurDetections > 0 { transformers.append(FaceBlurTransformer(sigma: options.blurDetections, detector: faces)) }
        if options.blur > 0 { transformers.append(BlurTransformer(radius: options.blur)) }
        if options.sharpen > 0 { transformers.append(SharpeningTransformer(sigma: options.sharpen)) }
        if options.pixelate > 1 { transformers.append(PixelatingTransformer(blockSize: Double(options.pixelate))) }
        // Outlines after the filters (which would blur them), before extend and padding.
        if options.drawDetections { transformers.append(FaceBoxDrawingTransformer(detector: faces)) }
        if options.extend {
            let size = CGSize(width: geometry.targetWidth, height: geometry.targetHeight)
            transformers.append(ExtendingTransformer(size: size, gravity: Self.scaled(options.extendGravity, width: dpr, height: dpr)))
        }
        if options.extendAspectRatio, geometry.extendAspectRatioWidth > 0, geometry.extendAspectRatioHeight > 0 {
            let size = CGSize(width: geometry.extendAspectRatioWidth, height: geometry.extendAspectRatioHeight)
            transformers.append(ExtendingTransformer(size: size, gravity: Self.scaled(options.extendAspectRatioGravity, width: dpr, height: dpr)))
        }
        let padding = options.padding
        if !padding.isEmpty {
            transformers.append(PaddingTransformer(
                top: Double(padding.top) * dpr, right: Double(padding.right) * dpr,
                bottom: Double(padding.bottom) * dpr, left: Double(padding.left) * dpr
            ))
        }
        if options.roundCorners > 0 { transformers.append(RoundCornerTransformer(radius: options.roundCorners * dpr)) }
        return transformers
    }

    /// `gravity` with its pixel offsets multiplied (rounded half to even, as imgproxy does);
    /// fractions and focus points are relative already.
    static func scaled(_ gravity: ImageGravity, width: Double, height: Double) -> ImageGravity {
        guard case let .anchor(anchor, x, y) = gravity else { return gravity }
        func multiplied(_ offset: ImageGravity.Offset, _ factor: Double) -> ImageGravity.Offset {
            guard case .points(let value) = offset else { return offset }
            return .points((value * factor).rounded(.toNearestOrEven))
        }
        return .anchor(anchor, x: multiplied(x, width), y: multiplied(y, height))
    }
}
