// Format sniffing (ImageFormat(sniffing:)): magic bytes, ISO media brands, the SVG prolog.
import Foundation
import WebImage
import FuzzerMain

@main enum Target {
    static func main() { runFuzzer(fuzz) }
}

func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    _ = ImageFormat(sniffing: Data(bytes: bytes, count: count))
    return 0
}
