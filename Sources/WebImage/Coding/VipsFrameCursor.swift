import Foundation
internal import ImageEngine

/// The frames of a GIF or WebP read in one forward pass. libvips' GIF and WebP loaders compose
/// each frame on the canvas of the one before, so a fresh load of frame `n` (`page=n`) replays
/// frames 0 to `n`, and reading an animation frame by frame that way costs frames² / 2 frame
/// decodes (a 250-frame GIF of 1 MP frames: over a minute). The cursor keeps one load of every
/// frame it gives (`n`: the header's frames, those `decodeFrameLimit` keeps) and reads each
/// frame from it in turn, then turns it upright or thumbnails it alone (a thumbnail of the
/// whole strip would read across frame boundaries, and going back a frame replays the file);
/// going back to an earlier frame starts a new load. Frames up to
/// `BitmapThumbnail.maxPixelCount` are thumbnailed by `PixelBuffer.resampled`, to the size
/// libvips' thumbnail gives (libvips' box shrink took about 4 times as long on 1 MP frames).
/// A pass has one `WorkBudget` (`decodeTimeBudget.animation`): the loader's work, and the
/// shaping of each frame (its copy, colour conversion and thumbnail), counted in it, and no
/// frame read once it is spent.
final class VipsFrameCursor: Sendable {
    private let data: Data
    private let loader: VipsLoader
    private let header: VipsHeader
    private let plan: DecodePlan
    /// The CPU time one pass over the frames may take.
    private let budget: Duration
    /// The load of every frame, the index of the next frame it can give without starting over,
    /// and the pass's budget.
    private let state = Locked<Pass?>(nil)

    private struct Pass {
        let strip: VipsImageRef
        var next: Int
        let budget: WorkBudget
    }

    init(data: Data, loader: VipsLoader, header: VipsHeader, plan: DecodePlan, budget: Duration) {
        self.data = data
        self.loader = loader
        self.header = header
        self.plan = plan
        self.budget = budget
    }

    /// Frame `index` as RGBA8 sRGB, upright, at the plan's size.
    func frame(at index: Int) throws(VipsError) -> PixelBuffer {
        try state.withLock { state throws(VipsError) -> PixelBuffer in
            var current: Pass
            if let state, state.next <= index {
                current = state
            } else {
                // A pass over the frames from the first has a budget of its own.
                let budget = WorkBudget(limit: budget)
                current = Pass(strip: try loader.frames(header.pageCount, of: data, budget: budget), next: 0, budget: budget)
            }
            // The frame is read now: the load moves past it whether or not the read succeeds.
            state = nil
            try current.budget.check()
            let strip = current.strip
            let frameHeight = strip.pageHeight
            guard frameHeight > 0, (index + 1) * frameHeight <= strip.height else {
                throw VipsError("no frame \(index) in an animation of \(strip.height / max(1, frameHeight)) frames")
            }
            let pixels = try current.budget.stopping { () throws(VipsError) -> PixelBuffer in
                try shaped(try strip.extractingArea(x: 0, y: index * frameHeight, width: strip.width, height: frameHeight))
            }
            current.next = index + 1
            state = current
            return pixels
        }
    }

    /// `frame` upright and at the plan's size, as RGBA8 sRGB.
    private func shaped(_ frame: VipsImageRef) throws(VipsError) -> PixelBuffer {
        switch plan.mode {
        case .full(let orientation):
            return try (orientation > 1 ? frame.autorotated() : frame).normalizedToSRGB().renderRGBA()
        case let .thumbnail(width, height, stretch):
            guard frame.width * frame.height <= BitmapThumbnail.maxPixelCount, frame.isEightBit else {
                return try frame.thumbnail(width: width, height: height, sizing: stretch ? .force : .down)
                    .normalizedToSRGB().renderRGBA()
            }
            let size = try BitmapThumbnail.libvipsSize(header: header, shrink: 1, width: width, height: height, stretch: stretch)
            return try frame.normalizedToSRGB().renderRGBA()
                .resampled(to: size, orientation: header.orientation, hasAlpha: header.hasAlpha)
        }
    }
}
