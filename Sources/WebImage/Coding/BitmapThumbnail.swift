import Foundation
internal import ImageEngine

/// Thumbnails of images small enough to decode whole (at most `maxPixelCount`), made without
/// libvips (`PixelBuffer.resampled`, `TurboJPEG.thumbnail`): the size libvips' thumbnail
/// would give, so the engine that made a thumbnail never shows in its size.
enum BitmapThumbnail {
    /// Images above this many pixels go to libvips, which streams them instead of holding a
    /// whole bitmap. Same bound as the cached colour conversions.
    static let maxPixelCount = VipsImageRef.cachedTransformMaxPixels

    /// The size libvips' thumbnail gives for an image loaded at 1/`shrink` of its stored size:
    /// by `fitSize` when it can tell, else asked of libvips on an image that is never computed
    /// (once per question: see `asked`).
    static func libvipsSize(
        header: VipsHeader, shrink: Int, width: Int, height: Int, stretch: Bool
    ) throws(VipsError) -> (width: Int, height: Int) {
        if let size = fitSize(header: header, shrink: shrink, width: width, height: height, stretch: stretch) { return size }
        let question = SizeQuestion(
            loadedWidth: header.storedWidth / shrink, loadedHeight: header.storedHeight / shrink,
            orientation: header.orientation, width: width, height: height, stretch: stretch
        )
        if let size = asked.withLock({ $0[question] }) { return size }
        let probe = try VipsImageRef.placeholder(
            width: question.loadedWidth, height: question.loadedHeight, bands: 3, orientation: header.orientation
        ).thumbnail(width: width, height: height, sizing: stretch ? .force : .down)
        let size = (width: probe.width, height: probe.height)
        asked.withLock { asked in
            if asked.count >= askedLimit { asked.removeAll() }
            asked[question] = size
        }
        return size
    }

    /// What decides the size libvips' thumbnail gives.
    private struct SizeQuestion: Hashable {
        let loadedWidth: Int, loadedHeight: Int, orientation: Int, width: Int, height: Int, stretch: Bool
    }

    /// Sizes asked of libvips, by question. Asking builds a resize, and libvips compiles its
    /// liborc programs on every build: over a third of an image server's CPU on a small JPEG
    /// (docs/server-performance.md), which asks the same few questions again and again.
    private static let asked = Locked([SizeQuestion: (width: Int, height: Int)]())
    private static let askedLimit = 4096

    /// The size libvips' thumbnail gives when fitting the image, loaded at 1/`shrink`, in the
    /// box: the image's sides over the larger of the two side ratios (never below 1), rounded.
    /// Checked against libvips 8.14 on every box from 8 to 400 pixels for five test JPEGs;
    /// nil for a stretch, and when a side lands on a rounding tie, which libvips resolves in
    /// its own way.
    static func fitSize(header: VipsHeader, shrink: Int, width: Int, height: Int, stretch: Bool) -> (width: Int, height: Int)? {
        guard !stretch else { return nil }
        let swapped = header.orientation >= 5
        let loadedWidth = Double((swapped ? header.storedHeight : header.storedWidth) / shrink)
        let loadedHeight = Double((swapped ? header.storedWidth : header.storedHeight) / shrink)
        let factor = max(1, loadedWidth / Double(width), loadedHeight / Double(height))
        let sides = [loadedWidth * (1 / factor), loadedHeight * (1 / factor)]
        guard sides.allSatisfy({ abs($0 - $0.rounded(.down) - 0.5) > 1e-6 }) else { return nil }
        return (max(1, Int(sides[0].rounded())), max(1, Int(sides[1].rounded())))
    }
}
