// The GIF block walker: screen descriptor, colour tables, extensions, image descriptors,
// sub-blocks to the trailer, frame and LZW counts.
import Foundation
@testable import WebImage
import FuzzerMain

@main enum Target {
    static func main() { runFuzzer(fuzz) }
}

func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let blocks = GIFBlocks(Data(bytes: bytes, count: count))
    precondition(blocks.frameCount <= count / 11 + 1)
    if let frame = blocks.overlongFrame { precondition(frame < blocks.frameCount) }
    return 0
}
