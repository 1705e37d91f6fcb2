/// The few colours the dominant colours are chosen from, found as Android's Palette finds them
/// (`ColorCutQuantizer`): colours cut to 5 bits a channel, near-black, near-white and skin-like
/// greys left out, then boxes of the colour cube split at their median, the largest box first,
/// until there are `maximumColors`; each box gives its mean colour and its pixel count.
struct ColorCutQuantizer {
    struct Swatch: Sendable, Equatable {
        var color: RGBA8
        var population: Int
        var hsl: HSL { HSL(color) }
    }

    /// The swatches of the visible pixels (alpha at least 128, as a pixel mostly seen) of `rgba`.
    static func swatches(rgba: [UInt8], maximumColors: Int = 16) -> [Swatch] {
        var histogram = [Int](repeating: 0, count: 1 << 15)
        for offset in stride(from: 0, to: rgba.count, by: 4) where rgba[offset + 3] >= 128 {
            histogram[quantised(rgba[offset], rgba[offset + 1], rgba[offset + 2])] += 1
        }
        var colors: [Int] = []
        for color in 0..<histogram.count where histogram[color] > 0 {
            if isIgnored(widened(color)) { histogram[color] = 0 } else { colors.append(color) }
        }
        guard colors.count > maximumColors else {
            return colors.map { Swatch(color: widened($0), population: histogram[$0]) }
        }
        var boxes = [Box(lower: 0, upper: colors.count - 1, colors: colors, histogram: histogram)]
        while boxes.count < maximumColors {
            // The box of the largest volume, the first of equals (a stable order: the result is deterministic).
            guard let index = boxes.indices.filter({ boxes[$0].canSplit }).max(by: { boxes[$0].volume < boxes[$1].volume }) else { break }
            let second = boxes[index].split(colors: &colors, histogram: histogram)
            boxes.append(second)
        }
        return boxes.compactMap { box in
            let swatch = box.average(colors: colors, histogram: histogram)
            return isIgnored(swatch.color) ? nil : swatch
        }
    }

    /// A box of the 5-bit colour cube: `colors[lower...upper]` and their bounds.
    private struct Box {
        var lower: Int, upper: Int
        var minimum = (0, 0, 0), maximum = (0, 0, 0)

        init(lower: Int, upper: Int, colors: [Int], histogram: [Int]) {
            (self.lower, self.upper) = (lower, upper)
            fitBounds(colors: colors)
        }

        var canSplit: Bool { upper > lower }
        var volume: Int { (maximum.0 - minimum.0 + 1) * (maximum.1 - minimum.1 + 1) * (maximum.2 - minimum.2 + 1) }

        mutating func fitBounds(colors: [Int]) {
            minimum = (31, 31, 31)
            maximum = (0, 0, 0)
            for color in colors[lower...upper] {
                let c = components(color)
                minimum = (min(minimum.0, c.0), min(minimum.1, c.1), min(minimum.2, c.2))
                maximum = (max(maximum.0, c.0), max(maximum.1, c.1), max(maximum.2, c.2))
            }
        }

        /// Sorts the box's colours along its longest side and splits it where half its pixels
        /// lie below; this box keeps the lower part, the upper one is returned.
        mutating func split(colors: inout [Int], histogram: [Int]) -> Box {
            let lengths = (maximum.0 - minimum.0, maximum.1 - minimum.1, maximum.2 - minimum.2)
            let channel = lengths.0 >= lengths.1 && lengths.0 >= lengths.2 ? 0 : lengths.1 >= lengths.2 ? 1 : 2
            func key(_ color: Int) -> Int {
                let c = components(color)
                // The longest channel first, the others breaking ties, as Android reorders the bits.
                return switch channel {
                case 0: c.0 << 10 | c.1 << 5 | c.2
                case 1: c.1 << 10 | c.0 << 5 | c.2
                default: c.2 << 10 | c.1 << 5 | c.0
                }
            }
            colors[lower...upper].sort { key($0) < key($1) }
            let total = colors[lower...upper].reduce(0) { $0 + histogram[$1] }
            var count = 0
            var splitPoint = lower
            for index in lower...upper {
                count += histogram[colors[index]]
                if count >= total / 2 {
                    splitPoint = min(upper - 1, index)
                    break
                }
            }
            let second = Box(lower: splitPoint + 1, upper: upper, colors: colors, histogram: histogram)
            upper = splitPoint
            fitBounds(colors: colors)
            return second
        }

        func average(colors: [Int], histogram: [Int]) -> Swatch {
            var sums = (0, 0, 0), population = 0
            for color in colors[lower...upper] {
                let c = components(color), n = histogram[color]
                sums = (sums.0 + c.0 * n, sums.1 + c.1 * n, sums.2 + c.2 * n)
                population += n
            }
            let divisor = Double(max(1, population))
            func mean(_ sum: Int) -> Int { Int((Double(sum) / divisor).rounded()) }
            return Swatch(color: widened(mean(sums.0) << 10 | mean(sums.1) << 5 | mean(sums.2)), population: population)
        }
    }

    private static func quantised(_ red: UInt8, _ green: UInt8, _ blue: UInt8) -> Int {
        Int(red >> 3) << 10 | Int(green >> 3) << 5 | Int(blue >> 3)
    }

    private static func components(_ color: Int) -> (Int, Int, Int) {
        (color >> 10 & 31, color >> 5 & 31, color & 31)
    }

    /// A 5-bit colour as 8 bits, as Android widens it (shifted, not scaled).
    private static func widened(_ color: Int) -> RGBA8 {
        let c = components(color)
        return RGBA8(red: UInt8(c.0 << 3), green: UInt8(c.1 << 3), blue: UInt8(c.2 << 3))
    }

    /// Android's default filter: near black, near white, and the red "I line" of skin tones
    /// with little saturation, which would otherwise win the muted targets on every portrait.
    private static func isIgnored(_ color: RGBA8) -> Bool {
        let hsl = HSL(color)
        return hsl.lightness <= 0.05 || hsl.lightness >= 0.95 || (hsl.hue >= 10 && hsl.hue <= 37 && hsl.saturation <= 0.82)
    }
}
