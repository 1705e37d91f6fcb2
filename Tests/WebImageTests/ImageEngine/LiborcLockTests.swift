import Foundation
import ImageEngine
import Testing
import WebImage
import WebImageTestSupport

/// The lock around liborc's code memory (Sources/CVipsGlue/orc_lock.c): liborc before 0.4.34
/// allocates and frees compiled programs' code without its own lock, and concurrent libvips
/// pipelines crashed in it.
@Suite(.offThePool) struct LiborcLockTests {
    @Test func theLockIsChosenByLiborcVersion() throws {
        switch Vips.liborcLock {
        case .absent:
            Issue.record("libvips here is built with liborc (Debian's is): the lock should have found it")
        case .lockedHere(let version):
            #expect(Self.isBeforeTheFix(version), "liborc \(version) locks itself: taking our lock is needless")
        case .lockedByLiborc(let version):
            #expect(!Self.isBeforeTheFix(version), "liborc \(version) does not lock its code memory")
        case .turnedOff(let version):
            Issue.record("liborc \(version) left unlocked: WEBIMAGE_LIBORC_LOCK=off is for measuring only")
        }
    }

    /// libvips' own calls into liborc (here: the Gaussian blur's integer convolution) reach the
    /// lock, so every pipeline the library builds is covered, not only code that calls liborc
    /// itself.
    @Test func libvipsCallsIntoLiborcGoThroughTheLock() throws {
        try Vips.start()
        let before = LiborcLock.routedCalls
        let image = try TestImages.decoded(TestImages.data("photos/rocket.jpg"))
        let blurred = try #require(BlurTransformer(radius: 3).transformedImage(with: image, forKey: "rocket"))
        #expect(blurred.pixelWidth == image.pixelWidth)
        #expect(LiborcLock.routedCalls > before)
    }

    /// The reproducer's short form, in a process of its own: two threads compile, run and free
    /// liborc programs for 2 s, then build and tear down libvips pipelines for 2 s. Without the
    /// lock, the first part crashes within milliseconds on liborc 0.4.33
    /// (scripts/orc-race.sh); with it, every program gives its own result.
    @Test(arguments: ["orc", "vips"])
    func concurrentCompilesAndFreesNeitherCrashNorMixUpPrograms(mode: String) async throws {
        let result = try await ChildProcess.run("orc-race-probe", [mode, "2", "2"])
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
        #expect(result.standardOutput.contains(", 0 wrong"), "\(result.standardOutput)")
    }

    private static func isBeforeTheFix(_ version: String) -> Bool {
        let parts = version.split(separator: ".").compactMap { Int($0) }
        guard parts.count == 3 else { return false }
        return parts[0] == 0 && (parts[1] < 4 || (parts[1] == 4 && parts[2] < 34))
    }
}
