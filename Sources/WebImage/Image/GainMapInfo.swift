import Foundation

/// The gain map of an Ultra HDR / Adobe gain-map JPEG: how its HDR rendition is made from the
/// SDR base image (ISO 21496-1's binary metadata or the `hdrgm:` XMP of the map). Gains are
/// log2; each per-channel array holds red, green and blue (one value in the file applies to all
/// three).
public struct GainMapInfo: Hashable, Sendable {
    /// log2 of the gain at a map value of 0 (`GainMapMin`).
    public var minimumLog2: [Double]
    /// log2 of the gain at a map value of 1 (`GainMapMax`).
    public var maximumLog2: [Double]
    /// The map's encoding gamma (`Gamma`).
    public var gamma: [Double]
    /// Added to the SDR linear values before the gain (`OffsetSDR`).
    public var offsetSDR: [Double]
    /// Taken off the HDR linear values after the gain (`OffsetHDR`).
    public var offsetHDR: [Double]
    /// log2 of the display headroom at which the map starts to apply (`HDRCapacityMin`).
    public var capacityMinimumLog2: Double
    /// log2 of the display headroom from which the map applies fully (`HDRCapacityMax`).
    public var capacityMaximumLog2: Double
    /// The map's width in pixels as stored.
    public var pixelWidth: Int
    /// The map's height in pixels as stored.
    public var pixelHeight: Int
    /// True when the map applies in the base image's colour primaries (ISO 21496-1's
    /// `use_base_colour_space`; always for `hdrgm:` XMP), false when in the HDR rendition's.
    public var usesBaseColourSpace = true
    /// The HDR rendition's primaries, from the map image's ICC profile (its `cicp` tag or its
    /// colorants), when the map applies in them; nil when they are the base's or unknown.
    public var alternatePrimaries: ColorPrimaries?

    /// The primaries the map applies in, and so the HDR rendition's: the base's (BT.709, the
    /// base converted to sRGB) unless the map applies in known alternate primaries.
    var renditionPrimaries: ColorPrimaries {
        usesBaseColourSpace ? .bt709 : alternatePrimaries ?? .bt709
    }

    /// How far the full HDR rendition reaches above SDR white, as a ratio: 2^`capacityMaximumLog2`.
    public var headroom: Double { exp2(capacityMaximumLog2) }

    /// The weight the map applies with on a display of `headroom` (a ratio over SDR white): 0
    /// up to 2^`capacityMinimumLog2`, 1 from 2^`capacityMaximumLog2`, log-linear between.
    public func weight(displayHeadroom headroom: Double) -> Double {
        guard headroom > 0, capacityMaximumLog2 > capacityMinimumLog2 else { return 1 }
        return min(max((log2(headroom) - capacityMinimumLog2) / (capacityMaximumLog2 - capacityMinimumLog2), 0), 1)
    }
}
