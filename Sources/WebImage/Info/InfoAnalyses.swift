/// The pixel analyses an `ImageInfo` carries, each when its option asked for it.
public struct InfoAnalyses: Sendable, Equatable {
    /// `average`.
    public var averageColor: RGBA8?
    /// `dominant_colors`.
    public var dominantColors: DominantColors?
    /// `palette`.
    public var palette: [RGBA8]?
    /// `blurhash`.
    public var blurHash: BlurHash?
    /// `thumb_hash`.
    public var thumbHash: ThumbHash?
    /// `perceptual_hash`.
    public var perceptualHash: PerceptualHash?

    /// None.
    public init() {}

    /// The analyses of `analysis` that `options` asks for.
    init(_ analysis: ImageAnalysis, options: InfoOptions) throws(ImageAnalysisError) {
        if options.average { averageColor = analysis.averageColor(ignoringTransparent: options.averageIgnoresTransparent) }
        if options.dominantColors { dominantColors = analysis.dominantColors(buildingMissing: options.dominantColorsBuildMissing) }
        if options.paletteColors > 0 { palette = try analysis.palette(count: options.paletteColors) }
        if options.blurHashXComponents > 0, options.blurHashYComponents > 0 {
            blurHash = try analysis.blurHash(xComponents: options.blurHashXComponents, yComponents: options.blurHashYComponents)
        }
        if options.thumbHash { thumbHash = analysis.thumbHash }
        if options.perceptualHash { perceptualHash = analysis.perceptualHash }
    }
}
