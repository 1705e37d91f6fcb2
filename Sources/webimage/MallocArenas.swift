import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// glibc's malloc gives threads that allocate at once arenas of their own, up to 8 a core, and
/// each keeps what is freed in it: under libvips' and the server's threads the resident memory
/// of `serve` crept up by 6 – 13% over a 10-minute soak with no live heap growth, and stayed
/// flat with 2 arenas (docs/server-performance.md, "Soak"). imgproxy's documentation gives the
/// same advice (`MALLOC_ARENA_MAX=2`).
enum MallocArenas {
    /// Holds glibc to `count` arenas, unless `MALLOC_ARENA_MAX` is set (glibc has read it).
    /// Called before the server starts its threads; a no-op without glibc.
    static func limit(to count: Int32) {
        #if canImport(Glibc)
        guard ProcessInfo.processInfo.environment["MALLOC_ARENA_MAX"] == nil else { return }
        // `mallopt` and `M_ARENA_MAX` (-8, malloc.h) are not in Swift's Glibc module: looked up.
        guard let symbol = dlsym(nil, "mallopt") else { return }
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        let arenaMax: Int32 = -8
        _ = unsafeBitCast(symbol, to: Mallopt.self)(arenaMax, count)
        #endif
    }
}
