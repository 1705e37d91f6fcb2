import ArgumentParser
import Foundation
import WebImageSupport

/// Writes the commands' output files whole, with failures as one line in words naming the path.
enum OutputFile {
    /// Writes `bytes` to `url` whole: into a hidden temporary file beside it
    /// (`.NAME.XXXXXX`), renamed over it once written, so that a reader never sees half a file;
    /// an interrupted run removes its temporary files (`TemporaryFiles`). Makes `folder` first
    /// when given. Blocks: call it on the blocking pool.
    static func write(_ bytes: Data, to url: URL, makingFolder folder: URL? = nil) throws {
        do {
            if let folder { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        } catch {
            throw ValidationError("cannot write \(url.path): \((error as? CocoaError).map(describe) ?? "\(error)")")
        }
        let destination = url.path
        let temporary = (destination as NSString).deletingLastPathComponent
            .appending("/.\((destination as NSString).lastPathComponent).XXXXXX")
        var template = Array(temporary.utf8CString)
        let descriptor = TemporaryFiles.shared.create(&template)
        guard descriptor >= 0 else { throw failure(destination, errno) }
        let temporaryPath = TemporaryFiles.path(template)
        var code = writeAll(bytes, to: descriptor)
        if code == 0, fchmod(descriptor, TemporaryFiles.newFileMode) != 0 { code = errno }
        if close(descriptor) != 0, code == 0 { code = errno }
        if code == 0, rename(temporaryPath, destination) != 0 { code = errno }
        if code != 0 { unlink(temporaryPath) }
        TemporaryFiles.shared.forget(temporaryPath)
        if code != 0 { throw failure(destination, code) }
    }

    /// 0, or the errno of the write that failed.
    private static func writeAll(_ bytes: Data, to descriptor: Int32) -> Int32 {
        bytes.withUnsafeBytes { buffer in
            guard let start = buffer.baseAddress else { return 0 }
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, start + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return 0
        }
    }

    private static func failure(_ path: String, _ code: Int32) -> ValidationError {
        let reason = switch code {
        case EACCES, EPERM, EROFS: "permission denied"
        case ENOSPC, EDQUOT: "the disk is full"
        case ENOENT, ENOTDIR: "no such folder"
        case EISDIR: "a folder is in the way"
        default: String(cString: strerror(code))
        }
        return ValidationError("cannot write \(path): \(reason)")
    }

    private static func describe(_ error: CocoaError) -> String {
        switch error.code {
        case .fileWriteNoPermission: "permission denied"
        case .fileWriteOutOfSpace: "the disk is full"
        case .fileNoSuchFile, .fileWriteInvalidFileName: "no such folder"
        default: error.localizedDescription
        }
    }
}

/// The temporary files being written, removed when SIGINT, SIGTERM or SIGHUP ends the process,
/// so that an interrupted run leaves only whole outputs (SIGKILL cannot be caught: it can leave
/// a hidden `.NAME.XXXXXX`, never a half file under an output's name).
final class TemporaryFiles: Sendable {
    static let shared = TemporaryFiles()

    /// The permissions a new file gets (0666 less the umask), which mkstemp's 0600 is changed to.
    static let newFileMode: mode_t = {
        let mask = umask(0o022)
        umask(mask)
        return 0o666 & ~mask
    }()

    private struct State {
        var paths: Set<String> = []
        /// Set by the signal: files created after it would never be removed, so none are.
        var closing = false
    }

    private let state = Locked(State())
    // Set once in init and never read again: held only so that the sources stay alive.
    private nonisolated(unsafe) let signalSources: [any DispatchSourceSignal]

    private init() {
        _ = Self.newFileMode
        let queue = DispatchQueue(label: "webimage.signals")
        // A signal the process was started ignoring (nohup's SIGHUP, SIGINT for a shell's
        // background job) stays ignored; the others are caught by a dispatch source, which
        // needs the default action off.
        let caught = [SIGINT, SIGTERM, SIGHUP].filter { number in
            let previous = signal(number, SIG_IGN)
            return previous.map { unsafeBitCast($0, to: Int.self) } != unsafeBitCast(SIG_IGN, to: Int.self)
        }
        signalSources = caught.map { DispatchSource.makeSignalSource(signal: $0, queue: queue) }
        for (source, number) in zip(signalSources, caught) {
            source.setEventHandler { [self] in removeAllAndExit(signal: number) }
            source.resume()
        }
    }

    /// mkstemp(3) on `template`, the path recorded under the lock so that the signal's clean-up
    /// sees it; -1 (errno EINTR) once the process is ending.
    func create(_ template: inout [CChar]) -> Int32 {
        state.withLock { state in
            guard !state.closing else {
                errno = EINTR
                return -1
            }
            let descriptor = mkstemp(&template)
            if descriptor >= 0 { state.paths.insert(Self.path(template)) }
            return descriptor
        }
    }

    /// The path a template holds once mkstemp has filled it in.
    static func path(_ template: [CChar]) -> String {
        String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func forget(_ path: String) {
        state.withLock { _ = $0.paths.remove(path) }
    }

    private func removeAllAndExit(signal number: Int32) -> Never {
        state.withLock { state in
            state.closing = true
            for path in state.paths { unlink(path) }
        }
        exit(128 + number)
    }
}
