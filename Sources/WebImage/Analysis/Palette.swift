/// An N-colour palette: a median cut that splits, each time, the box whose colours lie
/// farthest from their mean (the largest sum of squared errors) where the two halves' errors
/// are smallest, then a few rounds of k-means that move each colour to the mean of the pixels
/// nearest it. The cut alone is Heckbert's median cut; the rounds take its error down further.
enum MedianCut {
    /// A distinct colour and how much of the image it covers (pixels weighted by alpha).
    struct Entry {
        var r: Double, g: Double, b: Double
        var weight: Double
        subscript(channel: Int) -> Double { channel == 0 ? r : channel == 1 ? g : b }
    }

    /// Rounds of k-means at most: after a few the error barely moves.
    static let refinementRounds = 6
    /// Colour-to-centre distances the rounds may compute in all (a round computes distinct
    /// colours x palette of them): 256 colours of a 100x100 photo get two rounds, 16 get six.
    static let refinementDistanceBudget = 4_000_000

    /// At most `count` colours for the visible pixels of `rgba`, the most used first.
    static func palette(rgba: [UInt8], count: Int) -> [RGBA8] {
        var weights: [UInt32: Double] = [:]
        for offset in stride(from: 0, to: rgba.count, by: 4) where rgba[offset + 3] > 0 {
            let key = UInt32(rgba[offset]) << 16 | UInt32(rgba[offset + 1]) << 8 | UInt32(rgba[offset + 2])
            weights[key, default: 0] += Double(rgba[offset + 3]) / 255
        }
        // Sorted by key: the same image always gives the same palette (dictionary order varies).
        let entries = weights.sorted { $0.key < $1.key }.map { key, weight in
            Entry(r: Double(key >> 16), g: Double(key >> 8 & 255), b: Double(key & 255), weight: weight)
        }
        guard !entries.isEmpty else { return [] }
        var centres = cut(entries, into: count)
        if entries.count > count { centres = refine(entries, centres: centres) }
        // Merged where two centres round to one colour.
        var merged: [RGBA8: Double] = [:]
        for centre in centres where centre.weight > 0 {
            let color = RGBA8(red: byte(centre.r), green: byte(centre.g), blue: byte(centre.b))
            merged[color, default: 0] += centre.weight
        }
        return merged.sorted { $0.value != $1.value ? $0.value > $1.value : key($0.key) < key($1.key) }.map(\.key)
    }

    private static func byte(_ value: Double) -> UInt8 { UInt8(max(0, min(255, value.rounded()))) }
    private static func key(_ color: RGBA8) -> Int { Int(color.red) << 16 | Int(color.green) << 8 | Int(color.blue) }

    /// The boxes' weighted means after cutting `entries` into at most `count` boxes.
    private static func cut(_ entries: [Entry], into count: Int) -> [Entry] {
        var boxes = [Box(entries)]
        while boxes.count < count {
            guard let index = boxes.indices.filter({ boxes[$0].entries.count > 1 }).max(by: { boxes[$0].error < boxes[$1].error }),
                  boxes[index].error > 0
            else { break }
            let (low, high) = boxes[index].split()
            boxes[index] = low
            boxes.append(high)
        }
        return boxes.map(\.mean)
    }

    /// Colours with their weighted sums, for means and squared errors.
    private struct Box {
        var entries: [Entry]
        var weight = 0.0
        var sums = [0.0, 0.0, 0.0], squares = [0.0, 0.0, 0.0]

        init(_ entries: [Entry]) {
            self.entries = entries
            for entry in entries {
                weight += entry.weight
                for channel in 0..<3 {
                    sums[channel] += entry.weight * entry[channel]
                    squares[channel] += entry.weight * entry[channel] * entry[channel]
                }
            }
        }

        /// The squared error of each channel around its mean.
        func channelError(_ channel: Int) -> Double {
            weight > 0 ? squares[channel] - sums[channel] * sums[channel] / weight : 0
        }

        var error: Double { channelError(0) + channelError(1) + channelError(2) }

        var mean: Entry {
            let w = max(weight, .leastNonzeroMagnitude)
            return Entry(r: sums[0] / w, g: sums[1] / w, b: sums[2] / w, weight: weight)
        }

        /// The box cut across its widest-spread channel where the two halves' squared errors add
        /// up least.
        func split() -> (Box, Box) {
            let channel = (0..<3).max { channelError($0) < channelError($1) } ?? 0
            let sorted = entries.sorted { $0[channel] != $1[channel] ? $0[channel] < $1[channel] : $0.weight < $1.weight }
            // Prefix sums along the sorted colours, all three channels: the error of each cut in one pass.
            var prefixWeight = 0.0, prefixSums = [0.0, 0.0, 0.0], prefixSquares = [0.0, 0.0, 0.0]
            var best = (index: 1, error: Double.infinity)
            for index in 1..<sorted.count {
                let entry = sorted[index - 1]
                prefixWeight += entry.weight
                for c in 0..<3 {
                    prefixSums[c] += entry.weight * entry[c]
                    prefixSquares[c] += entry.weight * entry[c] * entry[c]
                }
                // Only between distinct values of the channel: equal ones stay together.
                guard sorted[index][channel] != entry[channel] else { continue }
                let restWeight = weight - prefixWeight
                var error = 0.0
                for c in 0..<3 {
                    if prefixWeight > 0 { error += prefixSquares[c] - prefixSums[c] * prefixSums[c] / prefixWeight }
                    let restSum = sums[c] - prefixSums[c]
                    if restWeight > 0 { error += squares[c] - prefixSquares[c] - restSum * restSum / restWeight }
                }
                if error < best.error { best = (index, error) }
            }
            return (Box(Array(sorted[..<best.index])), Box(Array(sorted[best.index...])))
        }
    }

    /// Lloyd's k-means from `centres`: each colour to its nearest centre, each centre to the
    /// mean of its colours, until nothing moves or the rounds run out.
    private static func refine(_ entries: [Entry], centres start: [Entry]) -> [Entry] {
        var centres = start
        var assignment = [Int](repeating: -1, count: entries.count)
        let rounds = max(1, min(refinementRounds, refinementDistanceBudget / max(1, entries.count * centres.count)))
        for _ in 0..<rounds {
            var moved = false
            for (index, entry) in entries.enumerated() {
                var nearest = 0, nearestDistance = Double.infinity
                for (c, centre) in centres.enumerated() {
                    let (dr, dg, db) = (entry.r - centre.r, entry.g - centre.g, entry.b - centre.b)
                    let distance = dr * dr + dg * dg + db * db
                    if distance < nearestDistance { (nearest, nearestDistance) = (c, distance) }
                }
                if assignment[index] != nearest { (assignment[index], moved) = (nearest, true) }
            }
            guard moved else { break }
            var sums = [Entry](repeating: Entry(r: 0, g: 0, b: 0, weight: 0), count: centres.count)
            for (index, entry) in entries.enumerated() {
                let c = assignment[index]
                sums[c].r += entry.r * entry.weight
                sums[c].g += entry.g * entry.weight
                sums[c].b += entry.b * entry.weight
                sums[c].weight += entry.weight
            }
            for c in centres.indices {
                // A centre nobody chose keeps its place (and its weight goes to zero: dropped).
                if sums[c].weight > 0 {
                    centres[c] = Entry(r: sums[c].r / sums[c].weight, g: sums[c].g / sums[c].weight, b: sums[c].b / sums[c].weight, weight: sums[c].weight)
                } else {
                    centres[c].weight = 0
                }
            }
        }
        return centres
    }
}

extension ImageAnalysis {
    /// The image's `count` main colours (2...256), the most used first: a median cut of its
    /// visible pixels refined by k-means (fewer when the image has fewer distinct colours; none
    /// when it has no visible pixel). Opaque colours.
    public func palette(count: Int) throws(ImageAnalysisError) -> [RGBA8] {
        guard (2...256).contains(count) else { throw .colorCountOutOfRange(count) }
        return MedianCut.palette(rgba: rgba, count: count)
    }
}
