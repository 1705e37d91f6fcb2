import Foundation
import Testing
import WebImage
import WebImageSupport
@testable import WebImageServer
@testable import WebImageServerCore
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

    @Test func theSourceVersionPrefersItsETagThenItsDateThenItsBytes() async throws {
        #expect(try await EntityTag.sourceVersion(SourceImage(data: Data([1]), validators: .init(entityTag: "\"e\"", lastModified: "d"))) == "etag:\"e\"")
        #expect(try await EntityTag.sourceVersion(SourceImage(data: Data([1]), validators: .init(lastModified: "d"))) == "date:d")
        let byBytes = try await EntityTag.sourceVersion(SourceImage(data: Data([1, 2])))
        let otherBytes = try await EntityTag.sourceVersion(SourceImage(data: Data([1, 3])))
        #expect(byBytes.hasPrefix("sha256:") && byBytes != otherBytes)
    }

    /// The digest of a source without validators (over every byte of it) is taken
    /// off the cooperative pool; taken on a task's thread, the blocking check reports it.
    @Test func aSourcesDigestIsTakenOffTheCooperativePool() async throws {
        let size = 3 << 20 | Int.random(in: 1..<4096)   // told apart from other tests' sources
        let source = SourceImage(data: Data(repeating: 7, count: size))
        let reports = Locked<[BlockingCheck.Report]>([])
        let version = try await BlockingCheck.observing({ report in reports.withLock { $0.append(report) } }) {
            try await EntityTag.sourceVersion(source)
        }
        #expect(version.hasPrefix("sha256:"))
        #expect(reports.withLock { $0 }.filter { $0.detail == "\(size) bytes" }.isEmpty)
        let inline = await BlockingCheck.observing({ report in reports.withLock { $0.append(report) } }) {
            EntityTag.digestVersion(of: source.data)
        }
        #expect(inline == version)
        #expect(reports.withLock { $0 }.contains { $0.detail == "\(size) bytes" && $0.site.contains("digestVersion") })
    }
}
