import Foundation
internal import ImageEngine

extension VipsLoader {
    /// With `decodeToHDR`, a gain-map JPEG's HDR rendition as 16-bit PQ samples in the primaries
    /// the map applies in (`GainMapInfo.renditionPrimaries`: BT.709, or the alternate's when
    /// ISO 21496-1 says the map applies in those), the size (`width` x `height`) and orientation
    /// of the 8-bit rendition (the base image), by Adobe's gain map specification 1.0 and ISO
    /// 21496-1 (the same math), in floating point:
    /// `HDR = (SDR + offsetSDR) * 2^((min * (1 - g) + max * g) * weight) - offsetHDR`, SDR
    /// the base in linear light (sRGB's curve, after its ICC profile when not sRGB; converted
    /// to the alternate primaries in linear light when the map applies in them), g the map's
    /// value (0...1, the map resized to the base's size) to the power 1/gamma, min and max the
    /// log2 gains, `weight` from `displayHeadroom` (`GainMapInfo.weight`); 1.0 is SDR white, put
    /// at 203 cd/m² (BT.2408) for PQ. A thumbnail shrinks the base and the map on load and
    /// applies the map at its size (not the full rendition shrunk: a filter's sums of gains).
    func gainMapSource(
        for data: Data, gainMap: GainMapJPEG, header: VipsHeader, width: Int, height: Int, displayHeadroom: Double?, budget: Duration
    ) -> HighBitDepthSource {
        let info = gainMap.info
        let weight = info.weight(displayHeadroom: displayHeadroom ?? info.headroom)
        let orientation = header.orientation
        let profile = VipsImageRef.isSRGBProfile(header.iccProfile) ? nil : header.iccProfile
        let primaries = info.renditionPrimaries.rawValue
        var encoding = ColourEncoding(primaries: primaries, transfer: 16, matrix: 0, isFullRange: true, bitsPerComponent: 16)
        encoding.peakLuminance = ImageColorInfo.referenceWhite * exp2(weight * (info.maximumLog2.max() ?? 0))
        return HighBitDepthSource(
            build: { () throws(VipsError) in
                let workBudget = WorkBudget(limit: budget)
                // A thumbnail: both images shrunk on load (JPEG's DCT scaling) and resized to it
                // before the gain is applied, the base in linear light.
                let stored = orientation >= 5 ? (width: height, height: width) : (width: width, height: height)
                func shrink(_ side: (Int, Int)) -> Int {
                    let factor = min(side.0 / max(1, stored.width), side.1 / max(1, stored.height))
                    return [8, 4, 2].first { $0 <= factor } ?? 1
                }
                var base = try VipsImageRef.load(
                    operation, data: data, options: "fail_on=truncated,shrink=\(shrink((header.storedWidth, header.storedHeight)))"
                ).budgeted(by: workBudget)
                if profile != nil { base = try base.iccTransformedToSRGB() }
                var sdr = try base.inColourSpace(.scrgb)
                if primaries != 1 { sdr = try sdr.recombined(by: info.renditionPrimaries.matrixFromBT709) }
                if sdr.width != stored.width || sdr.height != stored.height {
                    sdr = try sdr.resized(
                        horizontalScale: Double(stored.width) / Double(sdr.width), verticalScale: Double(stored.height) / Double(sdr.height)
                    )
                }
                var map = try VipsImageRef.load(
                    "jpegload_buffer", data: gainMap.mapData, options: "fail_on=truncated,shrink=\(shrink((info.pixelWidth, info.pixelHeight)))"
                ).budgeted(by: workBudget)
                if map.width != sdr.width || map.height != sdr.height {
                    map = try map.thumbnail(width: sdr.width, height: sdr.height, sizing: .force)
                }
                let ln2 = log(2.0)
                // The log2 gain, times the weight and ln 2, from the map's value: then e^x.
                let recovery = try map.cast(to: .float).linear(multipliers: [1.0 / 255], addends: [0])
                    .raisedToPower(info.gamma.map { 1 / $0 })
                let exponent = try recovery.linear(
                    multipliers: zip(info.minimumLog2, info.maximumLog2).map { ($1 - $0) * weight * ln2 },
                    addends: info.minimumLog2.map { $0 * weight * ln2 }
                )
                let gain = try exponent.exponential()
                // Cached: the clamp below reads it twice.
                var hdr = try sdr.linear(multipliers: [1, 1, 1], addends: info.offsetSDR)
                    .multiplying(by: gain)
                    .linear(multipliers: [1, 1, 1], addends: info.offsetHDR.map { -$0 })
                    .cachingTiles()
                // Negative light (below the offsets) is black: max(x, 0) = (x + |x|) / 2.
                hdr = try hdr.adding(try hdr.absolute()).linear(multipliers: [0.5], addends: [0])
                if orientation > 1 { hdr = try hdr.autorotated() }
                if width != hdr.width || height != hdr.height {
                    hdr = try hdr.resized(horizontalScale: Double(width) / Double(hdr.width), verticalScale: Double(height) / Double(hdr.height))
                }
                return try hdr.linear(multipliers: [ImageColorInfo.referenceWhite], addends: [0]).perceptualQuantized()
                    .linear(multipliers: [65535], addends: [0.5]).cast(to: .ushort).withInterpretation(.rgb16)
            },
            signalMax: 65535, encoding: encoding
        )
    }
}

extension VipsImageRef {
    /// This image of linear light in cd/m² (0 or more) as SMPTE ST 2084 (PQ) signal, 0...1.
    func perceptualQuantized() throws(VipsError) -> VipsImageRef {
        let (m1, m2) = (2610.0 / 16384, 2523.0 / 4096 * 128)
        let (c1, c2, c3) = (3424.0 / 4096, 2413.0 / 4096 * 32, 2392.0 / 4096 * 32)
        // (c1 + c2 y) / (1 + c3 y) as c2 / c3 + (c1 - c2 / c3) / (1 + c3 y): y read once.
        let y = try linear(multipliers: [1.0 / 10000], addends: [0]).raisedToPower([m1])
        let ratio = try y.linear(multipliers: [c3], addends: [1]).raisedToPower([-1])
            .linear(multipliers: [c1 - c2 / c3], addends: [c2 / c3])
        return try ratio.raisedToPower([m2])
    }
}
