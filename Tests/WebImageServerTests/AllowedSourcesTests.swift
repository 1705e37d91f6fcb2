import Foundation
import Testing
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

@Suite(.offThePool) struct AllowedSourcesTests {
    @Test func prefixesWithWildcardsThatNeverCrossASlash() throws {
        let allowed = AllowedSources(["https://images.example.com/", "https://*.cdn.example.org/public/"])
        for good in ["https://images.example.com/a.jpg", "https://eu.cdn.example.org/public/x/y.png", "https://.cdn.example.org/public/z"] {
            #expect(allowed.allows(try #require(URL(string: good))), "\(good)")
        }
        for bad in ["https://images.example.com@evil.com/a.jpg", "http://images.example.com/a.jpg",
                    "https://evil.com/.cdn.example.org/public/a", "https://eu.cdn.example.org/private/a", "https://images.example.co/"] {
            #expect(!allowed.allows(try #require(URL(string: bad))), "\(bad)")
        }
        #expect(AllowedSources([]).allows(try #require(URL(string: "https://anything.example/"))))
    }
}
