// Each target's main: libFuzzer run as a library, on the target's test. The targets have their
// own main (rather than libFuzzer's) so that the build can leave SwiftPM's --sanitize=fuzzer
// off, which would instrument every dependency (scripts/fuzz.sh).
import CLibFuzzer
import Foundation

/// The target's test, for the C callback, which cannot capture it: set once, before fuzzing starts.
nonisolated(unsafe) private var test: ((UnsafePointer<UInt8>, Int) -> CInt)?

/// Runs libFuzzer with the process's arguments on `body`, and exits with its status.
public func runFuzzer(_ body: @escaping (UnsafePointer<UInt8>, Int) -> CInt) -> Never {
    test = body
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv) { data, count in
        guard let test else { return 0 }
        guard let data else {
            // An empty input may come without a buffer.
            var none: UInt8 = 0
            return test(&none, 0)
        }
        return test(data, count)
    })
}
