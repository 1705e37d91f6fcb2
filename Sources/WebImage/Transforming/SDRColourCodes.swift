import Foundation
internal import ImageEngine

/// An sRGB colour (a tint, a background) as 16-bit codes of an HDR image's colour encoding, as
/// SDR content sits in HDR (BT.2408): sRGB white at 203 cd/m², BT.709 primaries converted in
/// linear light; PQ (SMPTE ST 2084) absolute, HLG through the inverse of BT.2100's OOTF for a
/// 1,000 cd/m² display. Without an encoding (a 16-bit PNG or TIFF) the codes are the 8-bit
/// values widened.
struct SDRColourCodes {
    let encoding: ColourEncoding?

    /// Red, green and blue codes, full signal at 65535.
    func codes(of colour: RGBA8) -> [Double] {
        let srgb = [colour.red, colour.green, colour.blue].map { Double($0) / 255 }
        guard let encoding, encoding.declaresCICP else { return srgb.map { $0 * 65535 } }
        let linear = (ColorPrimaries(rawValue: encoding.primaries).matrixFromBT709 * srgb.map(Self.srgbToLinear)).map { max($0, 0) }
        let signal: [Double]
        switch encoding.transfer {
        case 16: signal = linear.map { Self.pq(nits: $0 * 203) }
        case 18: signal = Self.hlg(displayLinear: linear.map { $0 * 203 / 1000 })
        case 8: signal = linear
        case 1, 6, 14, 15: signal = linear.map { $0 < 0.018 ? 4.5 * $0 : 1.099 * pow($0, 0.45) - 0.099 }
        default: signal = linear.map(Self.linearToSRGB)
        }
        return signal.map { (min(max($0, 0), 1) * 65535).rounded() }
    }

    static func srgbToLinear(_ value: Double) -> Double {
        value <= 0.04045 ? value / 12.92 : pow((value + 0.055) / 1.055, 2.4)
    }

    static func linearToSRGB(_ value: Double) -> Double {
        value <= 0.0031308 ? value * 12.92 : 1.055 * pow(value, 1 / 2.4) - 0.055
    }

    /// SMPTE ST 2084's inverse EOTF of `nits` cd/m².
    static func pq(nits: Double) -> Double {
        let (m1, m2, c1, c2, c3) = (2610.0 / 16384, 2523.0 / 4096 * 128, 3424.0 / 4096, 2413.0 / 4096 * 32, 2392.0 / 4096 * 32)
        let y = pow(max(nits, 0) / 10000, m1)
        return pow((c1 + c2 * y) / (1 + c3 * y), m2)
    }

    /// BT.2100 HLG: the inverse OOTF (system gamma 1.2, BT.2020 luminance) then the OETF, of
    /// display light relative to the display's peak.
    static func hlg(displayLinear rgb: [Double]) -> [Double] {
        let gamma = 1.2
        let displayLuminance = 0.2627 * rgb[0] + 0.6780 * rgb[1] + 0.0593 * rgb[2]
        guard displayLuminance > 0 else { return [0, 0, 0] }
        let sceneLuminance = pow(displayLuminance, 1 / gamma)
        let (a, b, c) = (0.17883277, 0.28466892, 0.55991073)
        return rgb.map { value in
            let scene = value / pow(sceneLuminance, gamma - 1)
            return scene <= 1.0 / 12 ? (3 * scene).squareRoot() : a * log(12 * scene - b) + c
        }
    }
}

private func * (matrix: [[Double]], vector: [Double]) -> [Double] {
    matrix.map { row in zip(row, vector).map(*).reduce(0, +) }
}
