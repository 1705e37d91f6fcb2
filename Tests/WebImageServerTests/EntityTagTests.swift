import Foundation
import Testing
@testable import WebImageServer

@Suite struct EntityTagTests {
    @Test func aTagDependsOnTheSourceVersionAndTheResultKeyOnly() {
        let tag = EntityTag.make(sourceVersion: "etag:\"abc\"", resultKey: "k")
        #expect(tag == EntityTag.make(sourceVersion: "etag:\"abc\"", resultKey: "k"))
        #expect(tag != EntityTag.make(sourceVersion: "etag:\"abd\"", resultKey: "k"))
        #expect(tag != EntityTag.make(sourceVersion: "etag:\"abc\"", resultKey: "k2"))
        #expect(tag.hasPrefix("\"") && tag.hasSuffix("\"") && !tag.contains("/") && !tag.contains("+"))
    }

    @Test func ifNoneMatchMatchesListsStarAndWeakForms() {
        let tag = "\"xyz\""
        #expect(EntityTag.matches(ifNoneMatch: "\"xyz\"", tag))
        #expect(EntityTag.matches(ifNoneMatch: "\"a\", W/\"xyz\"", tag))
        #expect(EntityTag.matches(ifNoneMatch: "*", tag))
        #expect(!EntityTag.matches(ifNoneMatch: "\"xy\"", tag))
    }

    @Test func theSourceVersionPrefersItsETagThenItsDateThenItsBytes() {
        #expect(EntityTag.sourceVersion(SourceImage(data: Data([1]), validators: .init(entityTag: "\"e\"", lastModified: "d"))) == "etag:\"e\"")
        #expect(EntityTag.sourceVersion(SourceImage(data: Data([1]), validators: .init(lastModified: "d"))) == "date:d")
        let byBytes = EntityTag.sourceVersion(SourceImage(data: Data([1, 2])))
        #expect(byBytes.hasPrefix("sha256:") && byBytes != EntityTag.sourceVersion(SourceImage(data: Data([1, 3]))))
    }
}
