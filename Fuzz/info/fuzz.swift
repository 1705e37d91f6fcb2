// `ImageInfo(data:)`, what `webimage info` and the server's /info read from any file: the
// header under the decode limits, the EXIF block through libexif (CVipsGlue's exif_entries.c),
// the XMP packet through our XML reader, IPTC, hashsums. Each input gives an `ImageInfoError`
// or an info whose JSON is a JSON object naming the format, once with EXIF's titles and once
// with its canonical names.
import Foundation
import WebImage
import FuzzerMain

@main enum Target {
    static func main() { runFuzzer(fuzz) }
}

let options = [InfoOptions(), try? InfoOptions(parsing: "exif:1:1/calc_hashsums:md5:sha256")].compactMap { $0 }

func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    precondition(options.count == 2, "the options did not parse")
    let data = Data(UnsafeBufferPointer(start: start, count: count))
    for options in options {
        guard let info = try? ImageInfo(data: data, options: options) else { return 0 }
        precondition(info.pixelWidth > 0 && info.pixelHeight > 0 && info.byteCount == count)
        _ = info.xmpProperties
        guard let json = try? info.jsonData(), let object = try? JSONSerialization.jsonObject(with: json) as? [String: Any] else {
            preconditionFailure("an info's JSON is an object")
        }
        precondition(object["format"] != nil, "the JSON names the format")
    }
    return 0
}
