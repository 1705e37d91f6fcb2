/// Where a crop goes to keep faces: the box around the faces it can hold (all of them when
/// they fit, else the largest face and every other face that still fits beside it, the larger
/// first), the crop centred on that box and kept inside the image.
enum FaceCropPlacement {
    /// The box the crop centres on: `faces`' boxes joined, largest first, as long as the union
    /// fits in `area`; the largest face alone when even it does not. Nil without faces.
    static func focusBox(of faces: [DetectedFace], fitting area: (width: Int, height: Int)) -> (x: Int, y: Int, width: Int, height: Int)? {
        let bySize = faces.filter { $0.width > 0 && $0.height > 0 }.sorted { $0.width * $0.height > $1.width * $1.height }
        guard let largest = bySize.first else { return nil }
        var box = (left: largest.x, top: largest.y, right: largest.x + largest.width, bottom: largest.y + largest.height)
        for face in bySize.dropFirst() {
            let joined = (
                left: min(box.left, face.x), top: min(box.top, face.y),
                right: max(box.right, face.x + face.width), bottom: max(box.bottom, face.y + face.height)
            )
            if joined.right - joined.left <= area.width, joined.bottom - joined.top <= area.height { box = joined }
        }
        return (box.left, box.top, box.right - box.left, box.bottom - box.top)
    }

    /// The top-left corner of an `area` crop of an `image`-sized image centred on `box`, kept
    /// inside the image: a box that fits in the area stays whole in it.
    static func origin(centredOn box: (x: Int, y: Int, width: Int, height: Int), area: (width: Int, height: Int), image: (width: Int, height: Int)) -> (x: Int, y: Int) {
        // Halves rounded down: with the area's side s and the box's b, the start is at most the
        // box's and at least its end minus s.
        func start(_ boxStart: Int, _ boxSide: Int, _ side: Int, _ limit: Int) -> Int {
            let centred = boxStart + Int((Double(boxSide - side) / 2).rounded(.down))
            return max(0, min(centred, limit - side))
        }
        return (start(box.x, box.width, area.width, image.width), start(box.y, box.height, area.height, image.height))
    }
}
