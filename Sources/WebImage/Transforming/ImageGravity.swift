import Foundation

/// Where a smaller area sits in a larger one: the part of an image a crop keeps
/// (`GravityCroppingTransformer`), or where an image goes on a larger canvas
/// (`ExtendingTransformer`). imgproxy's gravity, with its rounding.
public enum ImageGravity: Sendable, Hashable {
    /// A side, a corner or the centre of the larger area.
    public enum Anchor: String, Sendable, CaseIterable {
        case center, north, south, east, west, northEast, northWest, southEast, southWest
    }

    /// How far from its anchor an area is moved.
    public enum Offset: Sendable, Hashable {
        /// In points (pixels times the image's scale).
        case points(Double)
        /// A fraction of the larger area's side.
        case fraction(Double)
    }

    /// Against `anchor`, moved by the offsets: inwards from a side or corner (a positive `x`
    /// moves an east-anchored area left), right and down from the centre.
    case anchor(Anchor, x: Offset = .points(0), y: Offset = .points(0))
    /// Centred on the point at `x`, `y` (fractions of the larger area's sides, 0...1), as near
    /// as the edges allow.
    case focusPoint(x: Double, y: Double)
    /// Where libvips' smartcrop finds the most interesting part (its `attention` measure:
    /// edges, skin tones, saturated colours). Placing an image on a canvas treats it as the centre.
    case smart
    /// Around the faces OpenCV's cascades find (`OpenCVFaceDetector.shared`): every face when
    /// they fit in the area, else the largest and those that fit beside it; as `smart` when
    /// there is none (`FaceCroppingTransformer`). imgproxy Pro's `obj:face`. Placing an image on
    /// a canvas treats it as the centre.
    case faces

    /// The centre, without offsets.
    public static let center = ImageGravity.anchor(.center)

    /// The top-left corner of an `inner` area placed in an `outer` one (pixels), points turned
    /// into pixels by `scale`; kept inside `outer` (an `inner` larger than `outer` starts at 0),
    /// or, when `overhanging`, kept overlapping it by at least a pixel (a watermark may hang over
    /// the edges). imgproxy's `calcPosition`: a centred area rounds half a pixel to even.
    func origin(
        inner: (width: Int, height: Int), outer: (width: Int, height: Int), scale: Double, overhanging: Bool = false
    ) -> (x: Int, y: Int) {
        var left: Int, top: Int
        switch self {
        case let .focusPoint(x, y):
            left = Self.roundedToEven(Double(outer.width) * x) - inner.width / 2
            top = Self.roundedToEven(Double(outer.height) * y) - inner.height / 2
        case .smart, .faces:
            return Self.anchor(.center).origin(inner: inner, outer: outer, scale: scale, overhanging: overhanging)
        case let .anchor(anchor, x, y):
            let offsetX = Self.pixels(x, side: outer.width, scale: scale)
            let offsetY = Self.pixels(y, side: outer.height, scale: scale)
            left = Self.roundedToEven(Double(outer.width - inner.width + 1) / 2) + offsetX
            top = Self.roundedToEven(Double(outer.height - inner.height + 1) / 2) + offsetY
            switch anchor {
            case .north, .northEast, .northWest: top = offsetY
            case .south, .southEast, .southWest: top = outer.height - inner.height - offsetY
            default: break
            }
            switch anchor {
            case .east, .northEast, .southEast: left = outer.width - inner.width - offsetX
            case .west, .northWest, .southWest: left = offsetX
            default: break
            }
        }
        if overhanging {
            return (max(1 - inner.width, min(left, outer.width - 1)), max(1 - inner.height, min(top, outer.height - 1)))
        }
        return (max(0, min(left, outer.width - inner.width)), max(0, min(top, outer.height - inner.height)))
    }

    /// An offset in whole pixels along a side `side` pixels long.
    static func pixels(_ offset: Offset, side: Int, scale: Double) -> Int {
        switch offset {
        case .points(let points): roundedToEven(points * scale)
        case .fraction(let fraction): roundedToEven(Double(side) * fraction)
        }
    }

    /// Rounded half to even (Go's `math.RoundToEven`, which imgproxy uses), 0 for a value that
    /// is not finite or does not fit.
    private static func roundedToEven(_ value: Double) -> Int {
        let rounded = value.rounded(.toNearestOrEven)
        guard rounded.isFinite, abs(rounded) < 1e15 else { return 0 }
        return Int(rounded)
    }

    /// The gravity in transformer keys: `center,p0.000000,f0.250000`, `fp,0.500000,0.500000`,
    /// `smart`, `faces(` the detector's key `)`.
    var transformerKey: String {
        switch self {
        case let .anchor(anchor, x, y): return "\(anchor.rawValue),\(Self.transformerKey(x)),\(Self.transformerKey(y))"
        case let .focusPoint(x, y): return "fp,\(TransformerKey.number(x)),\(TransformerKey.number(y))"
        case .smart: return "smart"
        case .faces: return "faces(\(OpenCVFaceDetector.shared.detectorKey))"
        }
    }

    /// An offset in transformer keys: `p10.000000` (points), `f0.250000` (a fraction).
    static func transformerKey(_ offset: Offset) -> String {
        switch offset {
        case .points(let points): "p" + TransformerKey.number(points)
        case .fraction(let fraction): "f" + TransformerKey.number(fraction)
        }
    }
}
