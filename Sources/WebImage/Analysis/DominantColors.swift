/// The six swatches Android's Palette and imgproxy's `dominant_colors` return: a vibrant
/// (saturated) and a muted colour, each light, normal and dark. A swatch is nil when no colour
/// of the image fits it (a grey image has no vibrant one), unless built from the found ones.
public struct DominantColors: Sendable, Hashable {
    public var vibrant: RGBA8?
    public var lightVibrant: RGBA8?
    public var darkVibrant: RGBA8?
    public var muted: RGBA8?
    public var lightMuted: RGBA8?
    public var darkMuted: RGBA8?

    public init(
        vibrant: RGBA8? = nil, lightVibrant: RGBA8? = nil, darkVibrant: RGBA8? = nil,
        muted: RGBA8? = nil, lightMuted: RGBA8? = nil, darkMuted: RGBA8? = nil
    ) {
        (self.vibrant, self.lightVibrant, self.darkVibrant) = (vibrant, lightVibrant, darkVibrant)
        (self.muted, self.lightMuted, self.darkMuted) = (muted, lightMuted, darkMuted)
    }

    /// The six, by their imgproxy names (`vibrant`, `vibrant_light`, …), in Palette's order of choice.
    subscript(target: Target) -> RGBA8? {
        get {
            switch target.kind {
            case .vibrant: [lightVibrant, vibrant, darkVibrant][target.row.rawValue]
            case .muted: [lightMuted, muted, darkMuted][target.row.rawValue]
            }
        }
        set {
            switch (target.kind, target.row) {
            case (.vibrant, .light): lightVibrant = newValue
            case (.vibrant, .normal): vibrant = newValue
            case (.vibrant, .dark): darkVibrant = newValue
            case (.muted, .light): lightMuted = newValue
            case (.muted, .normal): muted = newValue
            case (.muted, .dark): darkMuted = newValue
            }
        }
    }

    /// One of the six: Android's `Target`, its lightness and saturation ranges and aims.
    struct Target: Sendable, Equatable {
        enum Kind: Sendable { case vibrant, muted }
        enum Row: Int, Sendable { case light, normal, dark }
        let kind: Kind
        let row: Row

        /// Palette's order: each target takes its swatch before the next looks (no swatch twice).
        static let all: [Target] = [
            Target(kind: .vibrant, row: .light), Target(kind: .vibrant, row: .normal), Target(kind: .vibrant, row: .dark),
            Target(kind: .muted, row: .light), Target(kind: .muted, row: .normal), Target(kind: .muted, row: .dark),
        ]

        var lightness: (minimum: Double, target: Double, maximum: Double) {
            switch row {
            case .light: (0.55, 0.74, 1)
            case .normal: (0.3, 0.5, 0.7)
            case .dark: (0, 0.26, 0.45)
            }
        }

        var saturation: (minimum: Double, target: Double, maximum: Double) {
            switch kind {
            case .vibrant: (0.35, 1, 1)
            case .muted: (0, 0.3, 0.4)
            }
        }

        func accepts(_ hsl: HSL) -> Bool {
            (saturation.minimum...saturation.maximum).contains(hsl.saturation)
                && (lightness.minimum...lightness.maximum).contains(hsl.lightness)
        }

        /// Android's score: closeness to the aims (saturation 0.24, lightness 0.52) and the
        /// share of the most common swatch's population (0.24).
        func score(_ hsl: HSL, population: Int, maximumPopulation: Int) -> Double {
            0.24 * (1 - abs(hsl.saturation - saturation.target)) + 0.52 * (1 - abs(hsl.lightness - lightness.target))
                + 0.24 * Double(population) / Double(max(1, maximumPopulation))
        }
    }

    /// Chooses the six from `swatches` as Android's Palette does.
    init(choosingFrom swatches: [ColorCutQuantizer.Swatch]) {
        self.init()
        let maximumPopulation = swatches.map(\.population).max() ?? 1
        let scored = swatches.map { ($0, $0.hsl) }
        var used = Set<RGBA8>()
        for target in Target.all {
            var best: (color: RGBA8, score: Double)?
            for (swatch, hsl) in scored where target.accepts(hsl) && !used.contains(swatch.color) {
                let score = target.score(hsl, population: swatch.population, maximumPopulation: maximumPopulation)
                if best == nil || score > best?.score ?? 0 { best = (swatch.color, score) }
            }
            if let best {
                self[target] = best.color
                used.insert(best.color)
            }
        }
    }

    /// Fills each missing swatch from a found one (imgproxy's `build_missed`): the nearest in
    /// the same kind (vibrant or muted) first, else the other kind in the same row, else any
    /// (but a grey for a vibrant one); its hue is kept, its lightness set to the target's aim,
    /// its saturation brought into the target's range. Only found swatches are used, so the
    /// order does not matter.
    func buildingMissing() -> DominantColors {
        var built = self
        for target in Target.all where self[target] == nil {
            let otherKind: Target.Kind = target.kind == .vibrant ? .muted : .vibrant
            let rows: [Target.Row] = [.normal, .light, .dark].filter { $0 != target.row }
            let candidates = rows.map { Target(kind: target.kind, row: $0) } + [Target(kind: otherKind, row: target.row)]
                + rows.map { Target(kind: otherKind, row: $0) }
            // A grey has no hue to make a vibrant colour of.
            let usable = { (source: Target) in
                self[source].map { source.kind == target.kind || target.kind == .muted || HSL($0).saturation > 0 } ?? false
            }
            guard let source = candidates.first(where: usable), let color = self[source] else { continue }
            var hsl = HSL(color)
            hsl.lightness = target.lightness.target
            // A bound inside 0...1 is kept a hundredth away from: the colour is rounded to 8
            // bits, which moves its saturation by up to about 0.005.
            let (low, high) = (target.saturation.minimum, target.saturation.maximum)
            hsl.saturation = min(high < 1 ? high - 0.01 : high, max(low > 0 ? low + 0.01 : low, hsl.saturation))
            built[target] = hsl.rgb
        }
        return built
    }
}

extension ImageAnalysis {
    /// The image's six dominant colours (Android's Palette: 16 colours found by a median cut
    /// of the visible pixels, each target scored on saturation, lightness and population). With
    /// `buildingMissing`, a swatch no colour fits is made from a found one (`build_missed`).
    public func dominantColors(buildingMissing: Bool = false) -> DominantColors {
        let found = DominantColors(choosingFrom: ColorCutQuantizer.swatches(rgba: rgba))
        return buildingMissing ? found.buildingMissing() : found
    }
}
