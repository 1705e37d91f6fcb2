// SVG sniffing (the first element after the XML prolog) and the entity check that refuses
// entities which could expand.
import Foundation
@testable import WebImage
import FuzzerMain

@main enum Target {
    static func main() { runFuzzer(fuzz) }
}

func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    _ = ImageFormat(sniffing: data)
    _ = SVGEntities.refusal(in: data)
    return 0
}
