/// One pixel: 8-bit red, green, blue and alpha, straight (not premultiplied).
public struct RGBA8: Hashable, Sendable, CustomStringConvertible {
    /// Red, 0...255.
    public var red: UInt8
    /// Green, 0...255.
    public var green: UInt8
    /// Blue, 0...255.
    public var blue: UInt8
    /// Alpha, 0 (transparent) ... 255 (opaque).
    public var alpha: UInt8

    /// A pixel; opaque unless `alpha` is given.
    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// Opaque white.
    public static let white = RGBA8(red: 255, green: 255, blue: 255)
    /// Opaque black.
    public static let black = RGBA8(red: 0, green: 0, blue: 0)
    /// Transparent black.
    public static let clear = RGBA8(red: 0, green: 0, blue: 0, alpha: 0)

    /// "rgba(r, g, b, a)".
    public var description: String { "rgba(\(red), \(green), \(blue), \(alpha))" }
}

extension RGBA8 {
    /// The four components, as the engine's colour arguments take them.
    var components: (red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8) { (red, green, blue, alpha) }
}
