import Foundation
import Testing
@testable import WebImage
import WebImageTestSupport

/// `IPTCCopyright`: what `encodeKeptMetadata = .copyright` keeps of an IPTC block, and that a
/// block cut anywhere gives nothing rather than a crash.
@Suite(.offThePool) struct IPTCCopyrightTests {
    /// IPTC-IIM datasets: tag 0x1C, record, dataset, 2-byte size, the text.
    static func datasets(_ entries: [(record: UInt8, dataset: UInt8, text: String)]) -> [UInt8] {
        entries.flatMap { entry in
            let text = Array(entry.text.utf8)
            return [0x1C, entry.record, entry.dataset, UInt8(text.count >> 8), UInt8(text.count & 0xFF)] + text
        }
    }

    /// A JPEG's APP13 payload: a resource before the IPTC one (0x0404), with a name, then it.
    static func photoshop(_ iim: [UInt8]) -> Data {
        var block = Array("Photoshop 3.0\0".utf8)
        block += Array("8BIM".utf8) + [0x03, 0xED, 3] + Array("abc".utf8) + [0, 0, 0, 2, 9, 9]
        block += Array("8BIM".utf8) + [0x04, 0x04, 0, 0, 0, 0, UInt8(iim.count >> 8), UInt8(iim.count & 0xFF)] + iim
        if iim.count % 2 == 1 { block.append(0) }
        return Data(block)
    }

    @Test func onlyTheCopyrightDatasetsOfTheApplicationRecordAreKept() throws {
        let iim = Self.datasets([(1, 90, "utf8"), (2, 25, "keyword"), (2, 80, "By Line"), (2, 120, "caption"), (2, 116, "(c) Notice"), (2, 110, "Credit")])
        let expected = Self.datasets([(1, 90, "utf8"), (2, 80, "By Line"), (2, 116, "(c) Notice"), (2, 110, "Credit")])
        #expect(IPTCCopyright.kept(Data(iim)) == Data(expected))
        let kept = try #require(IPTCCopyright.kept(Self.photoshop(iim)))
        #expect(kept.starts(with: Data("Photoshop 3.0\0".utf8)))
        #expect(kept.range(of: Data(expected)) != nil && kept.range(of: Data("keyword".utf8)) == nil && kept.range(of: Data("abc".utf8)) == nil)
        // No copyright: nothing.
        #expect(IPTCCopyright.kept(Self.photoshop(Self.datasets([(1, 90, "utf8"), (2, 25, "keyword")]))) == nil)
    }

    @Test func aBlockCutAnywhereGivesNothing() {
        let block = Self.photoshop(Self.datasets([(2, 80, "By Line"), (2, 116, "(c) Notice")]))
        for length in 0..<(block.count - 1) {
            let kept = IPTCCopyright.kept(block.prefix(length))
            #expect(kept == nil || length >= block.count - 1, "\(length)")
        }
    }
}
