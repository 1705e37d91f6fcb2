import Foundation

/// The image file directories (IFDs) of a TIFF, walked before libtiff reads them: libtiff 4.5
/// re-sorts its table of tags for each tag it does not know as it reads a directory, so a
/// directory of thousands of unknown tags costs seconds (30 directories of 4,000 took 5 s to
/// read the header), and libvips reads every directory to count the pages.
enum TIFFDirectories {
    /// The most entries a directory may hold: files in use hold tens.
    static let maxEntries = 1_024
    /// The most directories walked (pages).
    static let maxDirectories = 10_000
    /// The most entries squared, summed over the directories: libtiff's work on a directory grows
    /// with the square of its tags. One directory of 2,048 entries, or 10,000 pages of 20.
    static let maxEntryWork = 2_048 * 2_048

    /// Why the directories ask for too much work, or nil (also for data that is not a TIFF, or
    /// whose chain ends early or loops: libtiff reports those).
    static func excess(in data: Data) -> String? {
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> String? in
            guard bytes.count >= 8 else { return nil }
            let little: Bool
            switch (bytes[0], bytes[1]) {
            case (0x49, 0x49): little = true
            case (0x4D, 0x4D): little = false
            default: return nil
            }
            func value(_ at: Int, _ size: Int) -> Int? {
                guard at >= 0, size <= 8, at <= bytes.count - size else { return nil }
                var result = 0
                for byte in 0..<size {
                    result |= Int(bytes[at + byte]) << (8 * (little ? byte : size - 1 - byte))
                }
                return result
            }
            guard let version = value(2, 2) else { return nil }
            // Classic TIFF: 4-byte offsets, 2-byte counts, 12-byte entries; BigTIFF: 8, 8, 20.
            let big = version == 43
            guard version == 42 || big else { return nil }
            let (offsetSize, countSize, entrySize) = big ? (8, 8, 20) : (4, 2, 12)
            var next = value(big ? 8 : 4, offsetSize) ?? 0
            var seen = Set<Int>()
            var work = 0
            while next > 0, seen.insert(next).inserted {
                guard seen.count <= maxDirectories else {
                    return "more than \(maxDirectories) directories"
                }
                guard let entries = value(next, countSize) else { return nil }
                if entries > maxEntries {
                    return "a directory of \(entries) tags, more than the limit of \(maxEntries)"
                }
                work += entries * entries
                if work > maxEntryWork {
                    return "\(seen.count) directories whose tag counts squared add up to more than \(maxEntryWork)"
                }
                guard let following = value(next + countSize + entries * entrySize, offsetSize) else { return nil }
                next = following
            }
            return nil
        }
    }
}
