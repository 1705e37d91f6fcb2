import CVipsGlue

/// How the process keeps liborc's code memory consistent while libvips compiles and frees
/// liborc programs from many threads (`Vips.liborcLock`).
public enum LiborcLock: Sendable, Equatable, CustomStringConvertible {
    /// libvips runs without liborc: there is nothing to lock.
    case absent
    /// liborc 0.4.34 or later, which holds its own lock around its code memory.
    case lockedByLiborc(liborcVersion: String)
    /// An earlier liborc (Debian 12 has 0.4.33): every program compile and free runs under a
    /// lock of ours.
    case lockedHere(liborcVersion: String)
    /// An earlier liborc left unlocked by `WEBIMAGE_LIBORC_LOCK=off`: only to measure what the
    /// lock costs, since the crash is then back.
    case turnedOff(liborcVersion: String)

    /// How many liborc program compiles and frees have gone through the lock's entry points in
    /// this process (whether or not they had to lock): more than zero once libvips has built a
    /// pipeline that uses liborc, which shows its calls reach the lock.
    public static var routedCalls: Int { wi_orc_lock_routed_calls() }

    public var description: String {
        switch self {
        case .absent: "liborc absent"
        case .lockedByLiborc(let version): "liborc \(version), which locks its code memory itself"
        case .lockedHere(let version): "liborc \(version), its code memory locked by swift-webimage"
        case .turnedOff(let version): "liborc \(version), unlocked (WEBIMAGE_LIBORC_LOCK=off)"
        }
    }
}
