import WebImage

extension ProcessingOptions {
    /// The mark drawn over the result, last (imgproxy's `watermark`): the image is the
    /// server's (`WATERMARK_DATA`, `_PATH` or `_URL`); without one, nothing is drawn.
    public struct Watermark: Sendable, Hashable {
        /// Where the mark goes: one of imgproxy's nine gravities, or tiled over the whole result.
        public enum Position: Sendable, Hashable {
            case anchor(ImageGravity.Anchor)
            /// imgproxy's `re`: repeated, the offsets the gaps between the marks.
            case tiled
        }

        /// 0...1, multiplied by `WATERMARK_OPACITY`; 0: no mark.
        public var opacity = 0.0
        public var position = Position.anchor(.center)
        /// Offsets from the gravity's anchor (inwards), or the gaps when tiled: pixels before
        /// `dpr` from 1 (or -1) on, fractions of the result's side below.
        public var x = 0.0
        public var y = 0.0
        /// The mark fitted into the result's sides times this; 0: the mark's own size.
        public var scale = 0.0

        /// No mark.
        public init() {}
    }
}
