// ImageHeader(probing:): format, size, frames, orientation without pixels (libvips' header
// reads, the GIF block walk, the APNG control chunk, the SVG entity check, the limits' walks).
import Foundation
import WebImage
import FuzzerMain

@main enum Target {
    static func main() { runFuzzer(fuzz) }
}

func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    if let header = try? ImageHeader(probing: Data(bytes: bytes, count: count)) {
        precondition(header.pixelWidth > 0 && header.pixelHeight > 0 && header.frameCount >= 1)
        precondition((1...8).contains(header.orientation))
    }
    return 0
}
