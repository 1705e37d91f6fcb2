import Foundation

/// A colour as hue (0..<360), saturation and lightness (0...1), as Android's
/// `ColorUtils.RGBToHSL` and `HSLToColor` convert: the dominant colours' targets are in HSL.
struct HSL: Sendable, Equatable {
    var hue: Double
    var saturation: Double
    var lightness: Double

    init(hue: Double, saturation: Double, lightness: Double) {
        (self.hue, self.saturation, self.lightness) = (hue, saturation, lightness)
    }

    init(_ colour: RGBA8) {
        let (r, g, b) = (Double(colour.red) / 255, Double(colour.green) / 255, Double(colour.blue) / 255)
        let (maximum, minimum) = (max(r, g, b), min(r, g, b))
        let delta = maximum - minimum
        let lightness = (maximum + minimum) / 2
        var hue = 0.0, saturation = 0.0
        if delta > 0 {
            if maximum == r {
                hue = ((g - b) / delta).truncatingRemainder(dividingBy: 6)
            } else if maximum == g {
                hue = (b - r) / delta + 2
            } else {
                hue = (r - g) / delta + 4
            }
            saturation = delta / (1 - abs(2 * lightness - 1))
        }
        hue = (hue * 60).truncatingRemainder(dividingBy: 360)
        if hue < 0 { hue += 360 }
        self.init(hue: min(360, max(0, hue)), saturation: min(1, max(0, saturation)), lightness: min(1, max(0, lightness)))
    }

    /// The opaque 8-bit colour.
    var rgb: RGBA8 {
        let c = (1 - abs(2 * lightness - 1)) * saturation
        let m = lightness - c / 2
        let x = c * (1 - abs((hue / 60).truncatingRemainder(dividingBy: 2) - 1))
        let (r, g, b): (Double, Double, Double) = switch Int(hue / 60) {
        case 0: (c, x, 0)
        case 1: (x, c, 0)
        case 2: (0, c, x)
        case 3: (0, x, c)
        case 4: (x, 0, c)
        default: (c, 0, x)
        }
        func byte(_ value: Double) -> UInt8 { UInt8(max(0, min(255, ((value + m) * 255).rounded()))) }
        return RGBA8(red: byte(r), green: byte(g), blue: byte(b))
    }
}
