import Foundation

/// CIE colour differences of 8-bit sRGB colours, for comparing tone-mapped pixels with a
/// reference: CIELAB under D65 (sRGB's white) and CIEDE2000 (Sharma, Wu and Dalal's
/// formulation; checked against colour-science on their test pairs).
public enum ColourDifference {
    public typealias Lab = (l: Double, a: Double, b: Double)

    public static func lab(sRGB red: Double, _ green: Double, _ blue: Double) -> Lab {
        func linear(_ v: Double) -> Double {
            let c = v / 255
            return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        let (r, g, b) = (linear(red), linear(green), linear(blue))
        // IEC 61966-2-1's matrix, D65.
        let x = 0.4124564 * r + 0.3575761 * g + 0.1804375 * b
        let y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
        let z = 0.0193339 * r + 0.1191920 * g + 0.9503041 * b
        func f(_ t: Double) -> Double { t > 216.0 / 24389 ? cbrt(t) : (24389.0 / 27 * t + 16) / 116 }
        let (fx, fy, fz) = (f(x / 0.95047), f(y / 1.0), f(z / 1.08883))
        return (116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz))
    }

    public static func ciede2000(_ first: Lab, _ second: Lab) -> Double {
        let degrees = 180 / Double.pi
        let c1 = hypot(first.a, first.b), c2 = hypot(second.a, second.b)
        let meanC = (c1 + c2) / 2
        let g = 0.5 * (1 - sqrt(pow(meanC, 7) / (pow(meanC, 7) + pow(25, 7))))
        let a1 = (1 + g) * first.a, a2 = (1 + g) * second.a
        let cp1 = hypot(a1, first.b), cp2 = hypot(a2, second.b)
        func hue(_ b: Double, _ a: Double) -> Double {
            if a == 0 && b == 0 { return 0 }
            let h = atan2(b, a) * degrees
            return h < 0 ? h + 360 : h
        }
        let hp1 = hue(first.b, a1), hp2 = hue(second.b, a2)
        let deltaL = second.l - first.l
        let deltaC = cp2 - cp1
        var deltah = 0.0
        if cp1 * cp2 != 0 {
            deltah = hp2 - hp1
            if deltah > 180 { deltah -= 360 } else if deltah < -180 { deltah += 360 }
        }
        let deltaH = 2 * sqrt(cp1 * cp2) * sin(deltah / 2 / degrees)
        let meanL = (first.l + second.l) / 2
        let meanCp = (cp1 + cp2) / 2
        var meanH = hp1 + hp2
        if cp1 * cp2 != 0 {
            if abs(hp1 - hp2) <= 180 { meanH = (hp1 + hp2) / 2 } else if hp1 + hp2 < 360 { meanH = (hp1 + hp2 + 360) / 2 } else {
                meanH = (hp1 + hp2 - 360) / 2
            }
        }
        let t = 1 - 0.17 * cos((meanH - 30) / degrees) + 0.24 * cos(2 * meanH / degrees)
            + 0.32 * cos((3 * meanH + 6) / degrees) - 0.20 * cos((4 * meanH - 63) / degrees)
        let deltaTheta = 30 * exp(-pow((meanH - 275) / 25, 2))
        let rc = 2 * sqrt(pow(meanCp, 7) / (pow(meanCp, 7) + pow(25, 7)))
        let sl = 1 + 0.015 * pow(meanL - 50, 2) / sqrt(20 + pow(meanL - 50, 2))
        let sc = 1 + 0.045 * meanCp
        let sh = 1 + 0.015 * meanCp * t
        let rt = -sin(2 * deltaTheta / degrees) * rc
        return sqrt(
            pow(deltaL / sl, 2) + pow(deltaC / sc, 2) + pow(deltaH / sh, 2) + rt * (deltaC / sc) * (deltaH / sh)
        )
    }

    /// CIEDE2000 between two 8-bit sRGB colours.
    public static func ciede2000(sRGB first: [Double], _ second: [Double]) -> Double {
        ciede2000(lab(sRGB: first[0], first[1], first[2]), lab(sRGB: second[0], second[1], second[2]))
    }

    /// CIEDE2000 between each pixel of two RGBA8 bitmaps of `pixels` pixels, in pixel order.
    public static func ciede2000(rgba8 first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer, pixels: Int) -> [Double] {
        precondition(first.count >= pixels * 4 && second.count >= pixels * 4)
        return (0..<pixels).map { pixel in
            let offset = pixel * 4
            return ciede2000(
                lab(sRGB: Double(first[offset]), Double(first[offset + 1]), Double(first[offset + 2])),
                lab(sRGB: Double(second[offset]), Double(second[offset + 1]), Double(second[offset + 2]))
            )
        }
    }
}
