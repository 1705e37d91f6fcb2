/// One pixel: 8-bit red, green, blue and alpha, straight (not premultiplied).
public struct RGBA8: Hashable, Sendable, CustomStringConvertible {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8
    public var alpha: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    public static let white = RGBA8(red: 255, green: 255, blue: 255)
    public static let black = RGBA8(red: 0, green: 0, blue: 0)
    public static let clear = RGBA8(red: 0, green: 0, blue: 0, alpha: 0)

    public var description: String { "rgba(\(red), \(green), \(blue), \(alpha))" }
}
