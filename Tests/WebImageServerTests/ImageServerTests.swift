import Testing
@testable import WebImageServer
