// The JPEG marker walkers of our own: the header segments (EXIF orientation, ICC profile
// chunks), the progressive scan count, and the scan selection for a 1/8 decode; the readers
// of the metadata they find (EXIF's IFD0 tags, IPTC's copyright); and the gain-map reader (MPF's
// second image, its ISO 21496-1 box or hdrgm: XMP, its ICC profile's primaries), its ISO and ICC
// parsers also run on the whole input.
import Foundation
import ImageEngine
@testable import WebImage
import FuzzerMain

@main enum Target {
    static func main() { runFuzzer(fuzz) }
}

func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    if let metadata = JPEGMetadata(data) {
        precondition((1...8).contains(metadata.orientation))
        precondition((metadata.iccProfile?.count ?? 0) <= count)
        if let exif = metadata.exif { precondition(JPEGMetadata.ifd0Tags(ofEXIF: exif).count <= 1000) }
        // Filtered, a block is never longer: its resources rebuilt as one, its datasets fewer (a pad byte more at most).
        if let iptc = metadata.iptc, let kept = IPTCCopyright.kept(iptc) { precondition(kept.count <= iptc.count + 1) }
    }
    if let gainMap = GainMapJPEG(data) {
        // The map is a part of the input, and its metadata within the ranges the reader admits.
        let info = gainMap.info
        precondition(!gainMap.mapData.isEmpty && gainMap.mapData.count < count)
        precondition(info.pixelWidth > 0 && info.pixelHeight > 0 && info.headroom.isFinite && info.headroom >= 1)
        precondition([info.minimumLog2, info.maximumLog2, info.gamma, info.offsetSDR, info.offsetHDR].allSatisfy { $0.count == 3 })
        precondition(info.usesBaseColourSpace || info.alternatePrimaries != nil || info.renditionPrimaries == .bt709)
    }
    if let info = GainMapJPEG.info(iso: ArraySlice(data), width: 1, height: 1) {
        precondition(info.capacityMaximumLog2 > info.capacityMinimumLog2 && info.gamma.allSatisfy { $0 > 0 })
        precondition(zip(info.minimumLog2, info.maximumLog2).allSatisfy { $0 <= $1 })
    }
    _ = GainMapJPEG.isoVersionIsReadable(ArraySlice(data))
    _ = GainMapJPEG.primaries(ofICC: data)
    let scans = DecodeCost.progressiveJPEGScans(in: data, countingUpTo: 100)
    precondition(scans <= 101)
    if let cut = TurboJPEG.scansReadAtOneEighth(of: data) {
        // The cut file keeps the start of image and ends with EOI, and is never longer than the input + EOI.
        precondition(cut.count <= count + 2 && cut.starts(with: [0xFF, 0xD8]) && cut.suffix(2).elementsEqual([0xFF, 0xD9]))
    }
    return 0
}
