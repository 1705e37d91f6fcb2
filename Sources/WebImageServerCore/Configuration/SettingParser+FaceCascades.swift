import Foundation
import WebImage

extension SettingParser where Value == OpenCVFaceDetector {
    /// `FACE_DETECTION_CASCADES`: OpenCV cascade files, comma-separated: the frontal face
    /// cascade, then, optionally, the profile one (run on the image and on its mirror image). Each
    /// must be a file that can be read, checked at start: a wrong path would fail every request
    /// that looks for faces.
    static var faceCascades: Self {
        Self(
            parse: { text throws(ImageServerConfigurationError) in
                let paths = ProcessingConfiguration.commaSeparated(text)
                guard (1...2).contains(paths.count) else {
                    throw ImageServerConfigurationError(problems: ["\"\(text)\" is not one or two cascade files (frontal, then profile)"])
                }
                if let unreadable = paths.first(where: { !FileManager.default.isReadableFile(atPath: $0) }) {
                    throw ImageServerConfigurationError(problems: ["\(unreadable) is not a file that can be read"])
                }
                return OpenCVFaceDetector(frontalCascadePath: paths[0], profileCascadePath: paths.count > 1 ? paths[1] : nil)
            },
            text: { detector in ([detector.frontalCascadePath] + (detector.profileCascadePath.map { [$0] } ?? [])).joined(separator: ",") }
        )
    }
}
