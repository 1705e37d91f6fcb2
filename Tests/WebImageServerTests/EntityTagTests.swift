import Foundation
import Testing
@testable import WebImageServer
import WebImageTestSupport

@Suite(.offThePool) struct EntityTagTests {
    @Test func aTagDependsOnTheSourceVersionAndTheResultKeyOnly() throws {
        let parser = try ImgproxyURLParser()
        func key(_ path: String) throws -> ResultKey {
            let request = try parser.parse(path: path)
            return ResultKey(request: request, format: OutputFormatPlan(options: request.options, accept: nil, configuration: parser.configuration))
        }
        let (small, large) = (try key("/_/w:100/plain/http://e.com/a.jpg"), try key("/_/w:200/plain/http://e.com/a.jpg"))
        // Other signatures (key rotation) give the same key.
        #expect(try key("/other/w:100/plain/http://e.com/a.jpg") == small)
        let tag = EntityTag.make(sourceVersion: "etag:\"abc\"", key: small)
        #expect(tag == EntityTag.make(sourceVersion: "etag:\"abc\"", key: small))
        #expect(tag != EntityTag.make(sourceVersion: "etag:\"abd\"", key: small))
        #expect(tag != EntityTag.make(sourceVersion: "etag:\"abc\"", key: large))
        #expect(tag.hasPrefix("\"") && tag.hasSuffix("\"") && !tag.contains("/") && !tag.contains("+"))
    }

    @Test func ifNoneMatchMatchesListsStarAndWeakForms() {
        let tag = "\"xyz\""
        #expect(EntityTag.notModified(ifNoneMatch: "\"xyz\"", tag))
        #expect(EntityTag.notModified(ifNoneMatch: "\"a\", W/\"xyz\"", tag))
        #expect(EntityTag.notModified(ifNoneMatch: "*", tag))
        #expect(!EntityTag.notModified(ifNoneMatch: "\"xy\"", tag))
        #expect(!EntityTag.notModified(ifNoneMatch: nil, tag))
    }

    @Test func theSourceVersionPrefersItsETagThenItsDateThenItsBytes() {
        #expect(EntityTag.sourceVersion(SourceImage(data: Data([1]), validators: .init(entityTag: "\"e\"", lastModified: "d"))) == "etag:\"e\"")
        #expect(EntityTag.sourceVersion(SourceImage(data: Data([1]), validators: .init(lastModified: "d"))) == "date:d")
        let byBytes = EntityTag.sourceVersion(SourceImage(data: Data([1, 2])))
        #expect(byBytes.hasPrefix("sha256:") && byBytes != EntityTag.sourceVersion(SourceImage(data: Data([1, 3]))))
    }
}
