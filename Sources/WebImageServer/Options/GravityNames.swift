import WebImage

/// imgproxy's gravity words.
enum GravityNames {
    static let anchors: [String: ImageGravity.Anchor] = [
        "ce": .center, "no": .north, "so": .south, "ea": .east, "we": .west,
        "noea": .northEast, "nowe": .northWest, "soea": .southEast, "sowe": .southWest,
    ]

    static func name(of anchor: ImageGravity.Anchor) -> String {
        anchors.first { $0.value == anchor }?.key ?? "ce"
    }

    /// An offset as imgproxy reads it: 1 and more (or -1 and less) in pixels, a fraction of
    /// the side below; 0 is no offset.
    static func offset(_ value: Double) -> ImageGravity.Offset {
        abs(value) >= 1 || value == 0 ? .points(value) : .fraction(value)
    }
}
