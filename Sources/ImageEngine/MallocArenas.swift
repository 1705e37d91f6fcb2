import CVipsGlue
import Foundation

/// glibc's malloc gives threads that allocate at once arenas of their own, up to 8 a core, and
/// each keeps what is freed in it: under libvips' and the server's threads the resident memory
/// of `serve` crept up by 6 – 13% over a 10-minute soak with no live heap growth, and stayed
/// flat with 2 arenas (docs/server-performance.md, "Soak"). imgproxy's documentation gives the
/// same advice (`MALLOC_ARENA_MAX=2`).
public enum MallocArenas {
    /// Holds glibc to `count` arenas, unless `MALLOC_ARENA_MAX` is set (glibc has read it).
    /// Call it before the process starts its threads.
    public static func limit(to count: Int32) {
        guard ProcessInfo.processInfo.environment["MALLOC_ARENA_MAX"] == nil else { return }
        _ = wi_malloc_arena_max(count)
    }
}
