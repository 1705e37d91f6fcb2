import Foundation

/// The sizes one image goes through, computed from its size and the options before any pixel
/// is decoded: imgproxy's `CalcParams` (`processing/prepare.go`), with its rounding. Sizes
/// are in the frame the options see: upright, then rotated by `rotate`.
struct ResizeGeometry: Equatable {
    /// The source (trimmed, when trimming).
    let sourceWidth: Int, sourceHeight: Int
    /// The `crop` option's area in source pixels; 0 for a side not cut.
    let cropWidth: Int, cropHeight: Int
    /// Scale from the cropped source to the resized image.
    private(set) var widthScale: Double, heightScale: Double
    /// What `dpr` became: offsets, the box and padding are multiplied by it.
    private(set) var dprScale: Double
    /// The box times `dprScale` and zoom; 0 for a side not asked for.
    private(set) var targetWidth = 0, targetHeight = 0
    /// The resized image.
    private(set) var scaledWidth = 0, scaledHeight = 0
    /// The area the resized image is cut to; 0 for a side not cut.
    private(set) var resultCropWidth = 0, resultCropHeight = 0
    /// True when the cut to `resultCropWidth` x `resultCropHeight` leaves out part of the resized
    /// image (a side of 0, or one at least the image's, keeps the whole side).
    var cutsResult: Bool {
        (resultCropWidth > 0 && resultCropWidth < scaledWidth) || (resultCropHeight > 0 && resultCropHeight < scaledHeight)
    }
    /// The canvas `extend_aspect_ratio` grows the image to (the box's aspect ratio around the
    /// cut image); 0 when it is off, the box has a side of 0, or the image has its ratio already.
    private(set) var extendAspectRatioWidth = 0, extendAspectRatioHeight = 0

    init(width: Int, height: Int, isVector: Bool, options: ProcessingOptions) {
        sourceWidth = width
        sourceHeight = height
        cropWidth = Self.cropSide(width, options.crop?.width ?? 0)
        cropHeight = Self.cropSide(height, options.crop?.height ?? 0)
        let widthToScale = Self.minNonZero(cropWidth, width), heightToScale = Self.minNonZero(cropHeight, height)
        var (wshrink, hshrink) = (1.0, 1.0)
        let (sourceW, sourceH) = (Double(widthToScale), Double(heightToScale))
        let destinationW = options.width != 0 ? Double(options.width) : sourceW
        let destinationH = options.height != 0 ? Double(options.height) : sourceH
        if destinationW != sourceW { wshrink = sourceW / destinationW }
        if destinationH != sourceH { hshrink = sourceH / destinationH }
        if wshrink != 1 || hshrink != 1 {
            var type = options.resizingType
            if type == .auto {
                let sameOrientation = (sourceW - sourceH >= 0) == (destinationW - destinationH >= 0)
                type = sameOrientation ? .fill : .fit
            }
            if options.width == 0 && type != .force {
                wshrink = hshrink
            } else if options.height == 0 && type != .force {
                hshrink = wshrink
            } else if type == .fit {
                wshrink = max(wshrink, hshrink)
                hshrink = wshrink
            } else if type == .fill || type == .fillDown {
                wshrink = min(wshrink, hshrink)
                hshrink = wshrink
            }
        }
        wshrink /= options.zoomWidth
        hshrink /= options.zoomHeight
        var dprScale = options.dpr
        if !options.enlarge && !isVector {
            let minShrink = min(wshrink, hshrink)
            if minShrink < 1 {
                wshrink /= minShrink
                hshrink /= minShrink
                // The box cannot be reached without enlarging: the ratio is raised so that a
                // dpr below 1 does not move further from it (unless extending, which keeps
                // the composition whatever the dpr).
                if !options.extend { dprScale /= minShrink }
            }
            dprScale = min(dprScale, min(wshrink, hshrink))
        }
        if options.minWidth > 0 {
            let minShrink = sourceW / Double(options.minWidth)
            if minShrink < wshrink {
                hshrink /= wshrink / minShrink
                wshrink = minShrink
            }
        }
        if options.minHeight > 0 {
            let minShrink = sourceH / Double(options.minHeight)
            if minShrink < hshrink {
                wshrink /= hshrink / minShrink
                hshrink = minShrink
            }
        }
        wshrink /= dprScale
        hshrink /= dprScale
        wshrink = min(wshrink, sourceW)
        hshrink = min(hshrink, sourceH)
        widthScale = 1 / wshrink
        heightScale = 1 / hshrink
        self.dprScale = dprScale
        computeSizes(widthToScale: widthToScale, heightToScale: heightToScale, options: options)
        limitToResultDimension(widthToScale: widthToScale, heightToScale: heightToScale, options: options)
    }

    /// The sizes that follow from the scales (imgproxy's `calcSizes`).
    private mutating func computeSizes(widthToScale: Int, heightToScale: Int, options: ProcessingOptions) {
        targetWidth = Self.scaled(options.width, dprScale * options.zoomWidth)
        targetHeight = Self.scaled(options.height, dprScale * options.zoomHeight)
        scaledWidth = Self.scaled(widthToScale, widthScale)
        scaledHeight = Self.scaled(heightToScale, heightScale)
        if options.resizingType == .fillDown && !options.enlarge {
            let differenceW = Double(targetWidth) / Double(scaledWidth)
            let differenceH = Double(targetHeight) / Double(scaledHeight)
            if differenceW > differenceH && differenceW > 1 {
                resultCropHeight = Self.scaled(scaledWidth, Double(targetHeight) / Double(targetWidth))
                resultCropWidth = scaledWidth
            } else if differenceH > differenceW && differenceH > 1 {
                resultCropWidth = Self.scaled(scaledHeight, Double(targetWidth) / Double(targetHeight))
                resultCropHeight = scaledHeight
            } else {
                (resultCropWidth, resultCropHeight) = (targetWidth, targetHeight)
            }
        } else {
            (resultCropWidth, resultCropHeight) = (targetWidth, targetHeight)
        }
        (extendAspectRatioWidth, extendAspectRatioHeight) = (0, 0)
        if options.extendAspectRatio && targetWidth > 0 && targetHeight > 0 {
            let width = Self.minNonZero(scaledWidth, resultCropWidth)
            let height = Self.minNonZero(scaledHeight, resultCropHeight)
            let differenceW = Double(targetWidth) / Double(width)
            let differenceH = Double(targetHeight) / Double(height)
            if differenceH > differenceW {
                (extendAspectRatioWidth, extendAspectRatioHeight) = (width, Self.scaled(width, Double(targetHeight) / Double(targetWidth)))
            } else if differenceW > differenceH {
                (extendAspectRatioWidth, extendAspectRatioHeight) = (Self.scaled(height, Double(targetWidth) / Double(targetHeight)), height)
            }
        }
    }

    /// `max_result_dimension`: when the result (cut, extended, padded) would be larger on a
    /// side, every scale, `dprScale` with them (so the box, offsets and padding too), shrinks
    /// until it fits, no side below 1 pixel (imgproxy's `limitScale`, since 3.29).
    private mutating func limitToResultDimension(widthToScale: Int, heightToScale: Int, options: ProcessingOptions) {
        let limit = options.maxResultDimension
        guard limit > 0 else { return }
        let result = resultSize(options: options)
        guard result.width > limit || result.height > limit else { return }
        let downScale = Double(limit) / Double(max(result.width, result.height))
        widthScale = max(widthScale * downScale, 1 / Double(widthToScale))
        heightScale = max(heightScale * downScale, 1 / Double(heightToScale))
        dprScale *= downScale
        computeSizes(widthToScale: widthToScale, heightToScale: heightToScale, options: options)
    }

    /// The result's size once cut, extended and padded (before the format's own limits).
    private func resultSize(options: ProcessingOptions) -> (width: Int, height: Int) {
        var width = Self.minNonZero(scaledWidth, resultCropWidth)
        var height = Self.minNonZero(scaledHeight, resultCropHeight)
        if options.extend {
            width = max(width, targetWidth)
            height = max(height, targetHeight)
        } else if options.extendAspectRatio {
            width = max(width, extendAspectRatioWidth)
            height = max(height, extendAspectRatioHeight)
        }
        let padding = options.padding
        width += Self.scaledToEven(padding.left, dprScale) + Self.scaledToEven(padding.right, dprScale)
        height += Self.scaledToEven(padding.top, dprScale) + Self.scaledToEven(padding.bottom, dprScale)
        return (width, height)
    }

    /// imgproxy's `CalcCropSize`: 1 and more in pixels (truncated), a fraction of the side below.
    static func cropSide(_ side: Int, _ crop: Double) -> Int {
        if crop == 0 { return 0 }
        if crop >= 1 { return Int(min(crop, Double(Int32.max))) }
        return max(1, scaled(side, crop))
    }

    /// imgproxy's `imath.Scale`: `value * scale` rounded half away from zero, 0 kept.
    static func scaled(_ value: Int, _ scale: Double) -> Int {
        value == 0 ? 0 : clamped((Double(value) * scale).rounded())
    }

    /// imgproxy's `imath.ScaleToEven`: rounded half to even, 0 kept.
    static func scaledToEven(_ value: Int, _ scale: Double) -> Int {
        value == 0 ? 0 : clamped((Double(value) * scale).rounded(.toNearestOrEven))
    }

    static func minNonZero(_ first: Int, _ second: Int) -> Int {
        first == 0 ? second : second == 0 ? first : min(first, second)
    }

    /// A size as an `Int` that later sums cannot overflow (results that large are refused).
    private static func clamped(_ value: Double) -> Int {
        value.isFinite ? Int(max(-1e9, min(value, 1e9))) : 0
    }
}
