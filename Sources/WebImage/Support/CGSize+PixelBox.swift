import Foundation

extension CGSize {
    /// A caller's size as whole pixels, where 0 means "no limit" (as SDWebImage treats sizes of
    /// zero or larger than the image): NaN, negative and sub-pixel sides give 0, sides past any
    /// image libvips can hold (infinity, 1e300) are capped, so the conversion never traps.
    func pixelBox(rounding rule: FloatingPointRoundingRule) -> (width: Int, height: Int) {
        func side(_ value: CGFloat) -> Int {
            // NaN fails this comparison too.
            guard value >= 1 else { return 0 }
            return Int(Double(min(value, CGFloat(Self.largestPixelSide))).rounded(rule))
        }
        return (side(width), side(height))
    }

    /// Beyond libvips' largest image side (10 000 000 in 8.14), and well inside `Int32`.
    static let largestPixelSide = 1 << 30
}
