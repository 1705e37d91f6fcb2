import Foundation
import Testing
import WebImage
import WebImageTestSupport

@Suite(.offThePool) struct TransformerKeyTests {
    /// SDWebImage's XFORM-10 pipeline, its Core Image filter replaced by libvips' invert.
    static let sdWebImagePipeline = PipelineTransformer(transformers: [
        ResizingTransformer(size: CGSize(width: 100, height: 100), scaleMode: .aspectFill),
        RotationTransformer(angle: .pi / 4, fitSize: false),
        RoundCornerTransformer(radius: 50, corners: .allCorners, borderWidth: 1, borderColor: .black),
        FlippingTransformer(horizontal: true, vertical: true),
        CroppingTransformer(rect: CGRect(x: 0, y: 0, width: 50, height: 50)),
        TintTransformer(color: .clear),
        BlurTransformer(radius: 5),
        FilterTransformer(operation: "invert"),
    ])

    @Test func keysAreSDWebImagesKeys() {
        #expect(Self.sdWebImagePipeline.transformerKey == "SDImageResizingTransformer({100.000000,100.000000},2)-SDImageRotationTransformer(0.785398,0)-SDImageRoundCornerTransformer(50.000000,18446744073709551615,1.000000,#ff000000)-SDImageFlippingTransformer(1,1)-SDImageCroppingTransformer({0.000000,0.000000,50.000000,50.000000})-SDImageTintTransformer(#00000000,18)-SDImageBlurTransformer(5.000000)-SDImageFilterTransformer(invert)")
        #expect(RoundCornerTransformer(radius: 8).transformerKey == "SDImageRoundCornerTransformer(8.000000,18446744073709551615,0.000000,(null))")
        #expect(TintTransformer(color: RGBA8(red: 0x12, green: 0xab, blue: 0x03, alpha: 0x80), blendMode: .normal).transformerKey
            == "SDImageTintTransformer(#8012ab03,0)")
        #expect(FilterTransformer(operation: "gamma", arguments: "exponent=2").transformerKey == "SDImageFilterTransformer(gamma,exponent=2)")
    }

    @Test func numbersHaveSixDecimalsWithoutNoise() {
        #expect(BlurTransformer(radius: 0.1 + 0.2).transformerKey == BlurTransformer(radius: 0.3).transformerKey)
        #expect(BlurTransformer(radius: 0.3).transformerKey == "SDImageBlurTransformer(0.300000)")
        #expect(RotationTransformer(angle: -0.0, fitSize: true).transformerKey == "SDImageRotationTransformer(0.000000,1)")
        #expect(RotationTransformer(angle: -1e-9, fitSize: true).transformerKey == "SDImageRotationTransformer(0.000000,1)")
        #expect(CroppingTransformer(rect: CGRect(x: 1234567.5, y: 0, width: 1, height: 1)).transformerKey
            == "SDImageCroppingTransformer({1234567.500000,0.000000,1.000000,1.000000})")
    }

    @Test func equalParametersGiveEqualKeysAndOthersDiffer() {
        let makers: [(Double) -> any ImageTransformer] = [
            { ResizingTransformer(size: CGSize(width: $0, height: 10), scaleMode: .fill) },
            { CroppingTransformer(rect: CGRect(x: 0, y: $0, width: 5, height: 5)) },
            { RoundCornerTransformer(radius: $0) },
            { RoundCornerTransformer(radius: 4, borderWidth: $0, borderColor: .black) },
            { RotationTransformer(angle: $0, fitSize: true) },
            { BlurTransformer(radius: $0) },
            { TintTransformer(color: RGBA8(red: UInt8($0), green: 0, blue: 0)) },
            { FilterTransformer(operation: "gamma", arguments: "exponent=\($0)") },
        ]
        var keys = Set<String>()
        for make in makers {
            #expect(make(3).transformerKey == make(3).transformerKey)
            #expect(make(3).transformerKey != make(4).transformerKey)
            keys.insert(make(3).transformerKey)
        }
        #expect(keys.count == makers.count)
        let others: [any ImageTransformer] = [
            ResizingTransformer(size: CGSize(width: 3, height: 10), scaleMode: .aspectFit),
            RoundCornerTransformer(radius: 3, corners: .topLeft),
            RoundCornerTransformer(radius: 4, borderWidth: 3, borderColor: .white),
            RotationTransformer(angle: 3, fitSize: false),
            TintTransformer(color: RGBA8(red: 3, green: 0, blue: 0), blendMode: .normal),
            FlippingTransformer(horizontal: true, vertical: false), FlippingTransformer(horizontal: false, vertical: true),
        ]
        for other in others { #expect(keys.insert(other.transformerKey).inserted, "\(other.transformerKey)") }
    }

    @Test func aPipelinesKeyIsItsPartsKeysInOrder() {
        let flip = FlippingTransformer(horizontal: true, vertical: false)
        let blur = BlurTransformer(radius: 2)
        #expect(PipelineTransformer(transformers: [flip, blur]).transformerKey == flip.transformerKey + "-" + blur.transformerKey)
        #expect(PipelineTransformer(transformers: [blur, flip]).transformerKey == blur.transformerKey + "-" + flip.transformerKey)
        #expect(PipelineTransformer(transformers: []).transformerKey == "")
    }
}
