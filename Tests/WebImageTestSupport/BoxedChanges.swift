/// Where two RGBA8 images of one size differ, against boxes (face boxes, in pixels): the pixels
/// that differ inside a box, and those that differ outside every box.
public struct BoxedChanges: Sendable, Equatable, CustomStringConvertible {
    /// A box's left, top, width and height, in pixels.
    public typealias Box = (x: Int, y: Int, width: Int, height: Int)

    public let inside: Int
    public let outside: Int

    /// The changes from `first` to `second`, RGBA8 rows of `width` pixels (as many bytes each).
    public init(_ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer, width: Int, boxes: [Box]) {
        var (inside, outside) = (0, 0)
        let pixels = min(first.count, second.count) / 4
        for index in 0..<pixels where !(0..<4).allSatisfy({ first[index * 4 + $0] == second[index * 4 + $0] }) {
            let (x, y) = (index % width, index / width)
            if boxes.contains(where: { x >= $0.x && x < $0.x + $0.width && y >= $0.y && y < $0.y + $0.height }) { inside += 1 } else { outside += 1 }
        }
        (self.inside, self.outside) = (inside, outside)
    }

    public var description: String { "\(inside) pixels changed inside the boxes, \(outside) outside" }

    /// The band a 12-point face label (`FaceBoxDrawingTransformer`'s "face 0.83") lies in above
    /// a box whose top-left corner is at `x`, `y`: 24 rows, 120 columns from the box's left.
    public static func labelBand(aboveBoxAt x: Int, _ y: Int) -> Box {
        (x, y - 24, 120, 24)
    }
}
