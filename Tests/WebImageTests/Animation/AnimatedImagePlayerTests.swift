import Foundation
import ImageEngine
import Testing
import WebImage
import WebImageTestServer
import WebImageTestSupport

/// The player stepped by hand (`ManualAnimationClock`), frames decoded as they are asked for
/// (`FrameDecodeExecutor.inline`) unless a test holds the decodes back.
@Suite(.offThePool) struct AnimatedImagePlayerTests {
    /// TestImageAnimated.webp: 8 frames of 100 ms, decoded once for every test (read only).
    static let sharedWebP: AnimatedImage? = {
        guard let data = try? TestImages.data("sdwebimage/TestImageAnimated.webp"), let animated = AnimatedImage(data: data) else { return nil }
        animated.preloadAllFrames()
        return animated
    }()

    static func webP() throws -> AnimatedImage {
        let animated = try #require(sharedWebP)
        try #require(animated.isAllFramesLoaded)
        return animated
    }

    static func player(
        _ provider: any AnimatedImageProvider, executor: FrameDecodeExecutor = .inline
    ) throws -> (AnimatedImagePlayer, ManualAnimationClock) {
        let clock = ManualAnimationClock()
        return (try #require(AnimatedImagePlayer(provider: provider, clock: clock, executor: executor)), clock)
    }

    /// The frame indexes the frame handler reports.
    final class Shown: Sendable {
        let indexes = Locked<[Int]>([])
        var all: [Int] { indexes.withLock { $0 } }
        func attach(to player: AnimatedImagePlayer) {
            player.animationFrameHandler = { index, _ in self.indexes.withLock { $0.append(index) } }
        }
    }

    @Test func stepping250MillisecondsShowsFrameTwo() throws {
        let animated = try Self.webP()
        let (player, clock) = try Self.player(animated)
        player.startPlaying()
        #expect(player.currentFrameIndex == 0 && player.currentFrame != nil && player.isPlaying)
        for _ in 0..<25 { clock.advance(by: 0.010) }
        #expect(player.currentFrameIndex == 2)
        let expected = try #require(animated.animatedImageFrame(at: 2))
        #expect(try TransformInput.largestDifference(try #require(player.currentFrame), expected) == 0)
        // One long tick goes as far.
        let (other, otherClock) = try Self.player(animated)
        other.startPlaying()
        otherClock.advance(by: 0.25)
        #expect(other.currentFrameIndex == 2)
    }

    @Test func playbackRateScalesTime() throws {
        let (player, clock) = try Self.player(try Self.webP())
        player.playbackRate = 2
        player.startPlaying()
        for _ in 0..<25 { clock.advance(by: 0.010) }
        #expect(player.currentFrameIndex == 5)
        player.playbackRate = 0
        clock.advance(by: 1)
        #expect(player.currentFrameIndex == 5)
    }

    @Test(arguments: [
        (PlaybackMode.normal, [0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7]),
        (.reverse, [7, 6, 5, 4, 3, 2, 1, 0, 7, 6, 5, 4, 3, 2, 1, 0]),
        (.bounce, [0, 1, 2, 3, 4, 5, 6, 7, 6, 5, 4, 3, 2, 1, 0, 1]),
        (.reversedBounce, [7, 6, 5, 4, 3, 2, 1, 0, 1, 2, 3, 4, 5, 6, 7, 6]),
    ])
    func modesShowFramesInTheirOrder(mode: PlaybackMode, expected: [Int]) throws {
        let (player, clock) = try Self.player(try Self.webP())
        let shown = Shown()
        shown.attach(to: player)
        player.playbackMode = mode
        player.startPlaying()
        for _ in 1..<expected.count { clock.advance(by: 0.1) }
        #expect(shown.all == expected)
    }

    @Test func loopsEndAfterTheLoopCountOnTheLastFrame() throws {
        // TestLoopCount.gif: 2 frames of 500 ms, no NETSCAPE extension, so it plays once.
        let animated = try #require(AnimatedImage(data: try TestImages.data("sdwebimage/TestLoopCount.gif")))
        let (player, clock) = try Self.player(animated)
        #expect(player.totalLoopCount == 1)
        let loops = Locked<[Int]>([])
        player.animationLoopHandler = { count in loops.withLock { $0.append(count) } }
        player.startPlaying()
        clock.advance(by: 0.6)
        #expect(player.currentFrameIndex == 1 && player.isPlaying)
        clock.advance(by: 0.5)
        #expect(!player.isPlaying && player.currentFrameIndex == 1 && player.currentLoopCount == 1 && !clock.isRunning)
        clock.advance(by: 5)
        #expect(loops.withLock { $0 } == [1])

        let (thrice, thriceClock) = try Self.player(animated)
        thrice.totalLoopCount = 3
        let counted = Locked<[Int]>([])
        thrice.animationLoopHandler = { count in counted.withLock { $0.append(count) } }
        thrice.startPlaying()
        for _ in 0..<100 { thriceClock.advance(by: 0.1) }
        #expect(counted.withLock { $0 } == [1, 2, 3] && !thrice.isPlaying)
    }

    @Test func seekShowsTheFrameAtOnce() throws {
        let animated = try Self.webP()
        let (player, _) = try Self.player(animated)
        let shown = Shown()
        shown.attach(to: player)
        player.seekToFrame(at: 3, loopCount: 2)
        #expect(shown.all == [3] && player.currentFrameIndex == 3 && player.currentLoopCount == 2)
        let expected = try #require(animated.animatedImageFrame(at: 3))
        #expect(try TransformInput.largestDifference(try #require(player.currentFrame), expected) == 0)
        player.seekToFrame(at: 8, loopCount: 0)
        #expect(player.currentFrameIndex == 3)
    }

    @Test func pauseKeepsTheTimeAndStopGoesBackToTheStart() throws {
        let (player, clock) = try Self.player(try Self.webP())
        let shown = Shown()
        shown.attach(to: player)
        player.startPlaying()
        clock.advance(by: 0.15)
        player.pausePlaying()
        #expect(!player.isPlaying && !clock.isRunning && player.currentFrameIndex == 1)
        clock.advance(by: 1)
        player.startPlaying()
        clock.advance(by: 0.05)
        #expect(player.currentFrameIndex == 2)
        player.stopPlaying()
        #expect(!player.isPlaying && player.currentFrameIndex == 0 && player.currentLoopCount == 0)
        #expect(shown.all == [0, 1, 2])
    }

    @Test func aStillImageHasNoPlayer() throws {
        let still = try #require(AnimatedImage(data: try TestImages.data("sdwebimage/TestImage.jpg")))
        #expect(AnimatedImagePlayer(provider: still) == nil)
    }

    @Test func theBufferHoldsAtMostMaxBufferSize() throws {
        let animated = try Self.webP()
        let (player, clock) = try Self.player(animated)
        let frameBytes = 990 * 1050 * 4
        player.maxBufferSize = 3 * frameBytes
        player.startPlaying()
        var largest = 0
        for _ in 0..<30 {
            clock.advance(by: 0.05)
            largest = max(largest, player.bufferedFrameCount)
        }
        #expect(largest == 3)
        player.clearFrameBuffer()
        #expect(player.bufferedFrameCount == 0 && player.currentFrame != nil)
    }

    /// With decodes held back, frames due are skipped (time goes on) and the player shows the
    /// due frame as soon as it is decoded.
    @Test func aFrameNotDecodedInTimeIsSkipped() throws {
        let jobs = Locked<[@Sendable () -> Void]>([])
        let held = FrameDecodeExecutor { job in jobs.withLock { $0.append(job) } }
        let (player, clock) = try Self.player(try Self.webP(), executor: held)
        player.startPlaying()
        #expect(player.currentFrame == nil && player.currentFrameIndex == 0)
        clock.advance(by: 0.25)
        // Frames 0 and 1 went by unseen; 2 is due.
        #expect(player.currentFrameIndex == 2 && player.currentFrame == nil && player.skippedFrameCount == 2)
        for job in jobs.withLock({ list in defer { list.removeAll() }; return list }) { job() }
        clock.advance(by: 0.01)
        #expect(player.currentFrameIndex == 2 && player.currentFrame != nil && player.skippedFrameCount == 2)
    }

    /// A frame the provider cannot give is passed over; the others keep playing.
    @Test func anUndecodableFrameIsPassedOver() throws {
        let (player, clock) = try Self.player(MissingFrame(base: try Self.webP(), missing: 3))
        let shown = Shown()
        shown.attach(to: player)
        player.startPlaying()
        for _ in 0..<7 { clock.advance(by: 0.1) }
        #expect(shown.all == [0, 1, 2, 4, 5, 6, 7] && player.currentFrameIndex == 7)
    }

    /// The real clock and background decoding: every frame of TestImage.gif (5 x 120 ms) shows
    /// and a loop completes. The time limit guards against a player that hangs; it bounds
    /// nothing the test measures.
    @Test(.timeLimit(.minutes(1))) func playsInRealTime() async throws {
        let animated = try #require(AnimatedImage(data: try TestImages.data("sdwebimage/TestImage.gif")))
        let player = try #require(AnimatedImagePlayer(provider: animated))
        let (events, continuation) = AsyncStream<Int>.makeStream()
        player.animationFrameHandler = { index, _ in continuation.yield(index) }
        player.animationLoopHandler = { _ in continuation.yield(-1) }
        player.startPlaying()
        var seen = Set<Int>()
        for await event in events {
            seen.insert(event)
            if seen.isSuperset(of: [-1, 0, 1, 2, 3, 4]) { break }
        }
        player.stopPlaying()
        continuation.finish()
        #expect(seen.isSuperset(of: [-1, 0, 1, 2, 3, 4]), "\(seen)")
    }
}

/// An animation whose frame `missing` cannot be decoded.
struct MissingFrame: AnimatedImageProvider {
    let base: AnimatedImage
    let missing: Int
    var animatedImageData: Data? { base.animatedImageData }
    var animatedImageFrameCount: Int { base.animatedImageFrameCount }
    var animatedImageLoopCount: Int { base.animatedImageLoopCount }
    func animatedImageFrame(at index: Int) -> WebImage.Image? { index == missing ? nil : base.animatedImageFrame(at: index) }
    func animatedImageDuration(at index: Int) -> TimeInterval { base.animatedImageDuration(at: index) }
}
