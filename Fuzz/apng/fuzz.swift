// The APNG structure parser: chunks, CRCs, acTL/fcTL/fdAT, frames inside the canvas; then the
// frames rebuilt as PNG files, decoded and composited when the structure holds.
import Foundation
@testable import WebImage
import FuzzerMain

@main enum Target {
    static func main() { runFuzzer(fuzz) }
}

func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    _ = APNGStructure.animationControl(in: data)
    guard let structure = try? APNGStructure(data: data, maxPixelCount: 1 << 20) else { return 0 }
    precondition(structure.width * structure.height <= 1 << 20)
    for frame in structure.frames {
        precondition(frame.x + frame.width <= structure.width && frame.y + frame.height <= structure.height)
    }
    var options = ImageCoderOptions()
    options.decodeMaxPixelCount = 1 << 20
    if let coder = APNGCoder(animatedImageData: data, options: options) {
        for index in 0..<min(coder.animatedImageFrameCount, 8) { _ = coder.animatedImageFrame(at: index) }
    }
    return 0
}
