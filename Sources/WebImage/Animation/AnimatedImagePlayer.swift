import Foundation
internal import ImageEngine

/// Plays any `AnimatedImageProvider`: SDWebImage's `SDAnimatedImagePlayer`, without a view.
///
/// A clock (`AnimationClock`) ticks the player; each tick moves the current frame by the time
/// elapsed times `playbackRate`, through as many frames as that time covers. Frames are
/// decoded ahead, in the order they will show, into a buffer of at most `maxBufferSize` bytes;
/// a frame not decoded when due is skipped (the previous one stays on screen) rather than
/// stalling the animation, and a frame that does not decode is left out of play, its error
/// kept (`frameDecodingError`) and reported (`animationFrameErrorHandler`): a decode limit's or
/// the time budget's stop is `overLimit`. Handlers run on the thread that ticks (an error
/// handler, on the thread that decoded), outside the player's lock.
public final class AnimatedImagePlayer: Sendable {
    /// The animation.
    public let provider: any AnimatedImageProvider
    /// Number of frames (more than one).
    public let totalFrameCount: Int

    private let clock: any AnimationClock
    private let executor: FrameDecodeExecutor
    /// Seconds each frame shows, read once from the provider.
    private let durations: [TimeInterval]
    /// The provider's format, as its data says (for the error of a frame it gives no reason for).
    private let format: ImageFormat
    private let state: Locked<PlayerState>

    /// A player for `provider` driven by `clock`, decoding ahead through `executor`; nil for a
    /// provider of one frame or none (a still image has nothing to play).
    public init?(
        provider: any AnimatedImageProvider, clock: any AnimationClock = TimerAnimationClock(),
        executor: FrameDecodeExecutor = .background
    ) {
        let count = provider.animatedImageFrameCount
        guard count > 1 else { return nil }
        self.provider = provider
        self.totalFrameCount = count
        self.clock = clock
        self.executor = executor
        format = provider.animatedImageData.map { ImageFormat(sniffing: $0) } ?? .undefined
        // Durations that are not positive finite numbers show for 100 ms, as browsers do.
        durations = (0..<count).map { index in
            let duration = provider.animatedImageDuration(at: index)
            return duration.isFinite && duration > 0 ? duration : 0.1
        }
        state = Locked(PlayerState(
            totalLoopCount: max(0, provider.animatedImageLoopCount), automaticBufferBytes: AvailableMemory.frameBufferBytes
        ))
    }

    deinit { clock.stop() }

    // MARK: What shows

    /// The frame on screen: nil until the first one is decoded.
    public var currentFrame: Image? { state.withLock { $0.currentFrame } }
    /// The index of the frame due now (the one on screen unless it was not decoded in time).
    public var currentFrameIndex: Int { state.withLock { $0.index } }
    /// Loops completed since the start.
    public var currentLoopCount: Int { state.withLock { $0.loopCount } }
    /// True while the clock drives the player.
    public var isPlaying: Bool { state.withLock { $0.isPlaying } }
    /// Frames held decoded ahead.
    public var bufferedFrameCount: Int { state.withLock { $0.buffer.count } }
    /// Frames passed over without being shown (not decoded in time, or within one long tick).
    public var skippedFrameCount: Int { state.withLock { $0.skippedFrameCount } }
    /// Why the last frame left out of play did not decode (`overLimit`: a decode limit or the
    /// time budget stopped it); nil while every frame asked for decoded.
    public var frameDecodingError: ImageCodingError? { state.withLock { $0.frameError } }

    // MARK: Settings

    /// Loops to play before stopping on the last frame; 0 plays forever. The provider's loop
    /// count unless set.
    public var totalLoopCount: Int {
        get { state.withLock { $0.totalLoopCount } }
        set { state.withLock { $0.totalLoopCount = max(0, newValue) } }
    }

    /// Speed: 2 plays twice as fast; 0 (or less) holds the current frame.
    public var playbackRate: Double {
        get { state.withLock { $0.playbackRate } }
        set { state.withLock { $0.playbackRate = newValue.isFinite ? newValue : 0 } }
    }

    /// The order frames show in. Changing it takes effect from the next frame; `stopPlaying`
    /// goes back to the mode's first frame.
    public var playbackMode: PlaybackMode {
        get { state.withLock { $0.playbackMode } }
        set {
            state.withLock { state in
                state.playbackMode = newValue
                state.isTurned = false
                if !state.hasStarted { state.index = newValue.startIndex(frameCount: totalFrameCount) }
            }
        }
    }

    /// Bytes of decoded frames to hold ahead; 0 decides from the memory available (the lesser
    /// of 20 % of the total and 60 % of the free memory, as SDWebImage does). At least one frame.
    public var maxBufferSize: Int {
        get { state.withLock { $0.maxBufferSize } }
        set { state.withLock { $0.maxBufferSize = max(0, newValue) } }
    }

    /// Called with the index and the frame each time another frame shows.
    public var animationFrameHandler: (@Sendable (Int, Image) -> Void)? {
        get { state.withLock { $0.frameHandler } }
        set { state.withLock { $0.frameHandler = newValue } }
    }

    /// Called with the loop count each time a loop completes.
    public var animationLoopHandler: (@Sendable (Int) -> Void)? {
        get { state.withLock { $0.loopHandler } }
        set { state.withLock { $0.loopHandler = newValue } }
    }

    /// Called with the index and the error of each frame that does not decode (then left out
    /// of play), on the thread that decoded it.
    public var animationFrameErrorHandler: (@Sendable (Int, ImageCodingError) -> Void)? {
        get { state.withLock { $0.frameErrorHandler } }
        set { state.withLock { $0.frameErrorHandler = newValue } }
    }

    // MARK: Control

    /// Starts or resumes playing from where the player is; after the last loop, starts over.
    public func startPlaying() {
        let start = state.withLock { state -> Bool in
            guard !state.isPlaying else { return false }
            if state.isFinished { state.reset(frameCount: totalFrameCount) }
            state.isPlaying = true
            state.hasStarted = true
            return true
        }
        guard start else { return }
        clock.start { [weak self] elapsed in self?.tick(elapsed) }
        decodeAheadAndShow()
    }

    /// Stops the clock, keeping the frame, the loop count and the time into the frame.
    public func pausePlaying() {
        state.withLock { $0.isPlaying = false }
        clock.stop()
    }

    /// Stops the clock and goes back to the first frame and loop 0 (the frame handler is not
    /// called); the buffer is kept.
    public func stopPlaying() {
        clock.stop()
        state.withLock { state in
            state.isPlaying = false
            state.reset(frameCount: totalFrameCount)
            state.currentFrame = state.buffer[state.index] ?? state.currentFrame
        }
    }

    /// Shows frame `index` now (decoding it here if not buffered), at the start of loop
    /// `loopCount`; calls the frame handler before returning. Out-of-range indexes are ignored,
    /// and so is a frame that does not decode (its error reported as for any frame).
    public func seekToFrame(at index: Int, loopCount: Int) {
        guard (0..<totalFrameCount).contains(index) else { return }
        let buffered = state.withLock { $0.buffer[index] }
        guard let frame = buffered ?? decodedFrame(at: index) else { return }
        let handler = state.withLock { state in
            state.index = index
            state.loopCount = max(0, loopCount)
            state.time = 0
            state.hasStarted = true
            state.isFinished = false
            state.show(frame, at: index)
            return state.frameHandler
        }
        handler?(index, frame)
        decodeAheadAndShow()
    }

    /// Drops every decoded frame held ahead (the one on screen stays).
    public func clearFrameBuffer() {
        state.withLock { state in
            state.buffer.removeAll()
            state.generation += 1
            state.isDecoding = false
        }
    }

    // MARK: Ticks

    /// Moves time on by `elapsed` seconds (times the rate) and shows the frame then due.
    func tick(_ elapsed: TimeInterval) {
        let (loops, loopHandler, finished) = state.withLock { state -> ([Int], (@Sendable (Int) -> Void)?, Bool) in
            guard state.isPlaying, state.playbackRate > 0, elapsed.isFinite, elapsed > 0 else { return ([], nil, false) }
            var loops: [Int] = []
            state.time += elapsed * state.playbackRate
            let start = state.playbackMode.startIndex(frameCount: totalFrameCount)
            // A microsecond's slack: sums of float durations fall just short of the boundary.
            while state.time >= durations[state.index] - 1e-6 {
                let next = state.playbackMode.index(after: state.index, frameCount: totalFrameCount, turned: &state.isTurned)
                if next == start {
                    state.loopCount += 1
                    loops.append(state.loopCount)
                    if state.totalLoopCount > 0, state.loopCount >= state.totalLoopCount {
                        // Done: the last frame stays.
                        state.isPlaying = false
                        state.isFinished = true
                        state.time = 0
                        break
                    }
                }
                state.time = max(0, state.time - durations[state.index])
                if state.shownIndex != state.index { state.skippedFrameCount += 1 }
                state.index = next
            }
            return (loops, state.loopHandler, state.isFinished)
        }
        if finished { clock.stop() }
        for loop in loops { loopHandler?(loop) }
        decodeAheadAndShow()
    }

    /// Starts decoding the frames due next (unless a decode is running), then shows the
    /// current frame if it is decoded and not on screen yet.
    private func decodeAheadAndShow() {
        let startDecoding = state.withLock { state -> Bool in
            state.keepOnlyWindow(frames: window(state))
            guard !state.isDecoding, window(state).contains(where: { state.isMissing($0) }) else { return false }
            state.isDecoding = true
            return true
        }
        if startDecoding {
            let generation = state.withLock { $0.generation }
            executor.submit { [weak self] in self?.decodeWindow(generation: generation) }
        }
        let shown = state.withLock { state -> (Int, Image, (@Sendable (Int, Image) -> Void)?)? in
            guard state.shownIndex != state.index else { return nil }
            guard let frame = state.buffer[state.index] else { return nil }
            state.show(frame, at: state.index)
            return (state.index, frame, state.frameHandler)
        }
        if let (index, frame, handler) = shown { handler?(index, frame) }
    }

    /// Decodes the missing frames of the window, in the order they will show, until none is
    /// missing or the buffer was cleared.
    private func decodeWindow(generation: Int) {
        while true {
            let next = state.withLock { state -> Int? in
                guard state.generation == generation else { return nil }
                guard let index = window(state).first(where: { state.isMissing($0) }) else {
                    state.isDecoding = false
                    return nil
                }
                return index
            }
            guard let index = next else { return }
            guard let frame = decodedFrame(at: index) else {
                // Left out (and reported); the others still play.
                state.withLock { state in
                    if state.generation == generation { state.undecodable.insert(index) }
                }
                continue
            }
            state.withLock { state in
                guard state.generation == generation else { return }
                if window(state).contains(index) { state.buffer[index] = frame }
                if state.frameBytes == 0 { state.frameBytes = frame.pixelWidth * frame.pixelHeight * 4 }
            }
        }
    }

    /// The frames to hold, in the order they will show from the current one.
    private func window(_ state: PlayerState) -> [Int] {
        let count = min(totalFrameCount, state.bufferCount)
        var indexes = [state.index]
        var turned = state.isTurned
        while indexes.count < count {
            let last = indexes[indexes.count - 1]
            let next = state.playbackMode.index(after: last, frameCount: totalFrameCount, turned: &turned)
            if indexes.contains(next) { break }
            indexes.append(next)
        }
        return indexes
    }

    /// Frame `index`, its pixels decoded; nil when it does not decode, its error kept and
    /// handed to the error handler.
    private func decodedFrame(at index: Int) -> Image? {
        do {
            return try provider.frameOrError(at: index, format: format).decoded()
        } catch {
            let handler = state.withLock { state in
                state.frameError = error
                return state.frameErrorHandler
            }
            handler?(index, error)
            return nil
        }
    }
}
