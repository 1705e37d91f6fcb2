import Foundation

/// An `AnimatedImagePlayer`'s mutable state, kept under its lock.
struct PlayerState {
    var index = 0
    /// The index of `currentFrame`.
    var shownIndex: Int?
    var currentFrame: Image?
    var loopCount = 0
    /// Seconds of content time into the current frame.
    var time: TimeInterval = 0
    var isPlaying = false
    var hasStarted = false
    /// Stopped after the last loop.
    var isFinished = false
    /// A bounce on its way back.
    var isTurned = false
    var totalLoopCount: Int
    var playbackRate = 1.0
    var playbackMode = PlaybackMode.normal
    var maxBufferSize = 0
    var frameHandler: (@Sendable (Int, Image) -> Void)?
    var loopHandler: (@Sendable (Int) -> Void)?
    var frameErrorHandler: (@Sendable (Int, ImageCodingError) -> Void)?
    /// Why the last frame left out did not decode.
    var frameError: ImageCodingError?

    var buffer: [Int: Image] = [:]
    /// Bytes of one decoded frame, known after the first decode.
    var frameBytes = 0
    var isDecoding = false
    /// Frames the provider could not give: left out of the buffer, not retried.
    var undecodable: Set<Int> = []
    /// The buffer's size when `maxBufferSize` is 0, from the memory available when the player was made.
    let automaticBufferBytes: Int
    /// Bumped when the buffer is cleared, so that decodes started before drop their frames.
    var generation = 0
    var skippedFrameCount = 0

    init(totalLoopCount: Int, automaticBufferBytes: Int) {
        self.totalLoopCount = totalLoopCount
        self.automaticBufferBytes = automaticBufferBytes
    }

    mutating func show(_ frame: Image, at index: Int) {
        currentFrame = frame
        shownIndex = index
    }

    /// Back to the first frame of the mode, loop 0.
    mutating func reset(frameCount: Int) {
        index = playbackMode.startIndex(frameCount: frameCount)
        loopCount = 0
        time = 0
        isTurned = false
        isFinished = false
        shownIndex = nil
    }

    /// Frames the buffer may hold: `maxBufferSize` (or the automatic size) over a frame's
    /// bytes, at least one.
    var bufferCount: Int {
        guard frameBytes > 0 else { return 1 }
        let bytes = maxBufferSize > 0 ? maxBufferSize : automaticBufferBytes
        return max(1, bytes / frameBytes)
    }

    /// True for a frame to decode: not buffered, and not known to be undecodable.
    func isMissing(_ index: Int) -> Bool {
        buffer[index] == nil && !undecodable.contains(index)
    }

    /// Drops buffered frames outside `frames`.
    mutating func keepOnlyWindow(frames: [Int]) {
        let kept = Set(frames)
        buffer = buffer.filter { kept.contains($0.key) }
    }
}
