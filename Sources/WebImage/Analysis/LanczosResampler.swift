import Foundation

/// Pillow's Lanczos-3 resize of one channel in floating point, which `imagehash` uses for its
/// 32x32 grey copy: the kernel widened by the scale when shrinking (so every source pixel
/// counts), sample centres at half pixels, weights normalised to 1. Enlarges too (a 1x1 image
/// hashes), which the library's bitmap resampler does not.
enum LanczosResampler {
    /// `values` (`width` x `height`, rows first) resized to `toWidth` x `toHeight`.
    static func resize(_ values: [Double], width: Int, height: Int, toWidth: Int, toHeight: Int) -> [Double] {
        let horizontal = weights(from: width, to: toWidth)
        let vertical = weights(from: height, to: toHeight)
        var rows = [Double](repeating: 0, count: toWidth * height)
        for y in 0..<height {
            for (x, taps) in horizontal.enumerated() {
                var sum = 0.0
                for (index, weight) in zip(taps.first..., taps.weights) { sum += values[y * width + index] * weight }
                rows[y * toWidth + x] = sum
            }
        }
        var output = [Double](repeating: 0, count: toWidth * toHeight)
        for (y, taps) in vertical.enumerated() {
            for x in 0..<toWidth {
                var sum = 0.0
                for (index, weight) in zip(taps.first..., taps.weights) { sum += rows[index * toWidth + x] * weight }
                output[y * toWidth + x] = sum
            }
        }
        return output
    }

    /// For each output sample, its first input sample and the weights from there on.
    private static func weights(from input: Int, to output: Int) -> [(first: Int, weights: [Double])] {
        let scale = Double(input) / Double(output)
        let filterScale = max(1, scale)
        let support = 3 * filterScale
        return (0..<output).map { index in
            let centre = (Double(index) + 0.5) * scale
            let first = max(0, Int((centre - support + 0.5).rounded(.down)))
            let last = min(input, Int((centre + support + 0.5).rounded(.down)))
            var weights = (first..<max(first, last)).map { lanczos((Double($0) - centre + 0.5) / filterScale) }
            let total = weights.reduce(0, +)
            if total != 0 { weights = weights.map { $0 / total } }
            return (first, weights)
        }
    }

    private static func lanczos(_ x: Double) -> Double {
        guard x > -3, x < 3 else { return 0 }
        return sinc(x) * sinc(x / 3)
    }

    private static func sinc(_ x: Double) -> Double {
        guard x != 0 else { return 1 }
        let pix = Double.pi * x
        return sin(pix) / pix
    }
}
