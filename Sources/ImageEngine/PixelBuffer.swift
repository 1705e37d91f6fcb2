import CLibvips
import Glibc

/// An immutable 8-bit bitmap in memory, rows top to bottom, bands interleaved.
///
/// `@unchecked Sendable`: the bytes are written only before the buffer is handed out (filled,
/// then possibly colour-converted in place by its maker), and only read afterwards; the memory
/// is freed (or unmapped) in `deinit`, when nobody can read it any more.
public final class PixelBuffer: @unchecked Sendable {
    public let width: Int
    public let height: Int
    /// Samples per pixel: 1 grey, 2 grey + alpha, 3 RGB, 4 RGBA.
    public let bands: Int
    let baseAddress: UnsafeMutableRawPointer
    public let count: Int
    /// The memory map the bytes lie in (its start and length), when mapped from a file.
    private let mapping: (start: UnsafeMutableRawPointer, length: Int)?

    /// Takes ownership of memory allocated with glib's allocator (libvips' output).
    init(adopting memory: UnsafeMutableRawPointer, count: Int, width: Int, height: Int, bands: Int) {
        self.baseAddress = memory
        self.count = count
        self.width = width
        self.height = height
        self.bands = bands
        mapping = nil
    }

    /// The `count` bytes of `file` from `offset` on (a child renderer's memory file), mapped
    /// copy-on-write rather than copied; nil when they cannot be mapped.
    init?(mapping file: Int32, offset: Int, count: Int, width: Int, height: Int, bands: Int) {
        let length = offset + count
        guard let start = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE, file, 0), start != MAP_FAILED else { return nil }
        self.baseAddress = start + offset
        self.count = count
        self.width = width
        self.height = height
        self.bands = bands
        mapping = (start, length)
    }

    /// Copies `bytes` (width * height * bands of them).
    public init(copying bytes: UnsafeRawBufferPointer, width: Int, height: Int, bands: Int) {
        // g_malloc aborts rather than return NULL.
        let memory: UnsafeMutableRawPointer = g_malloc(gsize(max(1, bytes.count)))
        if let source = bytes.baseAddress { memory.copyMemory(from: source, byteCount: bytes.count) }
        self.baseAddress = memory
        self.count = bytes.count
        self.width = width
        self.height = height
        self.bands = bands
        mapping = nil
    }

    /// A buffer of `width * height * bands` bytes filled by `initializer`.
    public init(width: Int, height: Int, bands: Int, initializer: (UnsafeMutableRawBufferPointer) -> Void) {
        let count = width * height * bands
        let memory: UnsafeMutableRawPointer = g_malloc0(gsize(max(1, count)))
        initializer(UnsafeMutableRawBufferPointer(start: memory, count: count))
        self.baseAddress = memory
        self.count = count
        self.width = width
        self.height = height
        self.bands = bands
        mapping = nil
    }

    /// A buffer of `width * height * bands` bytes every one of which `initializer` writes (not
    /// zeroed first: a pass over the memory less).
    init(width: Int, height: Int, bands: Int, writingEveryByte initializer: (UnsafeMutableRawPointer) -> Void) {
        let count = width * height * bands
        let memory: UnsafeMutableRawPointer = g_malloc(gsize(max(1, count)))
        initializer(memory)
        self.baseAddress = memory
        self.count = count
        self.width = width
        self.height = height
        self.bands = bands
        mapping = nil
    }

    deinit {
        if let mapping { munmap(mapping.start, mapping.length) } else { g_free(baseAddress) }
    }

    /// Bytes per row.
    public var rowBytes: Int { width * bands }

    /// Read access to the bytes.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: baseAddress, count: count))
    }
}
