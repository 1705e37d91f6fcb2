/// How two images' samples differ, sample by sample: for the tests' comparisons of our pixels
/// with libvips', Pillow's or another path's. Its own target, compiled optimized even in a debug
/// build (Package.swift): the comparisons walk every sample of images up to 18 megapixels, which
/// the debug build's generic code took a tenth of the whole suite's CPU time for.
public struct SampleDifference: Sendable, Equatable, CustomStringConvertible {
    /// The largest difference of one sample.
    public private(set) var largest = 0
    /// The sum of the differences.
    public private(set) var total = 0
    /// Samples compared.
    public private(set) var count = 0
    /// Samples more than the tolerance apart.
    public private(set) var over = 0

    /// The mean difference of a sample.
    public var mean: Double { count > 0 ? Double(total) / Double(count) : 0 }

    /// Compares the first `channels` samples of `pixels` pixels of 8-bit samples: `first` has
    /// `firstBands` samples a pixel, `second` `secondBands`; a sample more than `tolerance` from
    /// its counterpart counts in `over`. With `weightedByAlpha` (both 4 bands), colours are
    /// compared as seen, each multiplied by its pixel's alpha (a transparent pixel's colour
    /// shows nowhere), and alpha itself is compared.
    public init(
        _ first: UnsafeRawBufferPointer, bands firstBands: Int, _ second: UnsafeRawBufferPointer, bands secondBands: Int,
        pixels: Int, channels: Int, tolerance: Int = 0, weightedByAlpha: Bool = false
    ) {
        precondition(first.count >= pixels * firstBands && second.count >= pixels * secondBands && channels <= min(firstBands, secondBands))
        let a = first.bindMemory(to: UInt8.self)
        let b = second.bindMemory(to: UInt8.self)
        for pixel in 0..<pixels {
            let (baseA, baseB) = (pixel * firstBands, pixel * secondBands)
            if weightedByAlpha {
                let (alphaA, alphaB) = (Int(a[baseA + 3]), Int(b[baseB + 3]))
                add(abs(alphaA - alphaB), tolerance: tolerance)
                for channel in 0..<3 {
                    add(abs((Int(a[baseA + channel]) * alphaA + 127) / 255 - (Int(b[baseB + channel]) * alphaB + 127) / 255), tolerance: tolerance)
                }
            } else {
                for channel in 0..<channels {
                    add(abs(Int(a[baseA + channel]) - Int(b[baseB + channel])), tolerance: tolerance)
                }
            }
        }
    }

    /// The same for 16-bit samples.
    public init(
        _ first: UnsafeBufferPointer<UInt16>, bands firstBands: Int, _ second: UnsafeBufferPointer<UInt16>, bands secondBands: Int,
        pixels: Int, channels: Int, tolerance: Int = 0
    ) {
        precondition(first.count >= pixels * firstBands && second.count >= pixels * secondBands && channels <= min(firstBands, secondBands))
        for pixel in 0..<pixels {
            for channel in 0..<channels {
                add(abs(Int(first[pixel * firstBands + channel]) - Int(second[pixel * secondBands + channel])), tolerance: tolerance)
            }
        }
    }

    private mutating func add(_ difference: Int, tolerance: Int) {
        largest = max(largest, difference)
        total += difference
        count += 1
        if difference > tolerance { over += 1 }
    }

    public var description: String { "largest \(largest), mean \((mean * 1000).rounded() / 1000), \(over) over tolerance" }
}

/// The distinct values of one channel of 16-bit samples (`bands` a pixel).
public func distinctValues(of samples: UnsafeBufferPointer<UInt16>, channel: Int, bands: Int) -> Set<UInt16> {
    var values = Set<UInt16>()
    for index in stride(from: channel, to: samples.count, by: bands) { values.insert(samples[index]) }
    return values
}

/// The largest value among the first `channels` samples of each pixel (`bands` a pixel).
public func largestValue(of samples: UnsafeBufferPointer<UInt16>, channels: Int, bands: Int) -> UInt16 {
    var largest: UInt16 = 0
    for pixel in stride(from: 0, to: samples.count - bands + 1, by: bands) {
        for channel in 0..<channels { largest = max(largest, samples[pixel + channel]) }
    }
    return largest
}
