import Testing
@testable import WebImage
import WebImageTestSupport

/// The scale a name gives (SDWebImage's `SDImageScaleFactorForKey`): from the stem of its last
/// path component, percent-encoded or not, never from a query.
@Suite(.offThePool) struct ImageScaleFactorTests {
    @Test(arguments: [
        ("https://example.com/a/TestImage@2x.png", 2.0), ("https://example.com/TestImage%403x.png", 3.0),
        ("/cache/key/icon@3x", 3.0), ("icon@2x.png", 2.0), ("https://example.com/TestImage.png", 1.0),
        ("https://example.com/a.png?size=@2x", 1.0), ("https://example.com/a@2x/b.png", 1.0), ("https://user@example.com/b.png", 1.0),
        ("", 1.0),
    ])
    func theScaleIsReadFromTheStemOfTheLastComponent(name: String, scale: Double) {
        #expect(ImageScaleFactor.fromName(name) == scale)
    }
}
