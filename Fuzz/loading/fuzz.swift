// The loaders' parsers of bytes from outside: `data:` URL payloads (base64 and percent-encoded),
// `Retry-After` values (seconds or an HTTP date) and validators read back from a disk entry.
import Foundation
@testable import WebImage
import FuzzerMain

@main enum Target {
    static func main() { runFuzzer(fuzz) }
}

func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    let text = String(decoding: data, as: UTF8.self)
    _ = try? DataURLImageLoader.payload(of: "data:" + text)
    _ = try? DataURLImageLoader.payload(of: "data:image/png;base64," + text)
    _ = try? DataURLImageLoader.payload(of: "data:image/png," + text)
    _ = DownloadRetryPolicy.retryAfterSeconds(text)
    _ = HTTPValidators(extendedData: data)
    return 0
}
