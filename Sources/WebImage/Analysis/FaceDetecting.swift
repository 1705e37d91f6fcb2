import Foundation

/// Finds faces in images (SDWebImage's style: a protocol, and `OpenCVFaceDetector` as its
/// default implementation). Face crops (`ImageGravity.faces`) and face blurs use one.
///
/// Detecting blocks (it reads the pixels): call it off the cooperative pool, as any decode.
public protocol FaceDetecting: Sendable {
    /// The faces in `image`'s first frame, boxes in its upright pixels (`pixelWidth` x
    /// `pixelHeight`), in no particular order.
    func faces(in image: Image) throws(FaceDetectionError) -> [DetectedFace]

    /// What the detector finds depends on: part of the keys of the transforms that use it, so
    /// that two detectors' crops are cached apart.
    var detectorKey: String { get }
}
