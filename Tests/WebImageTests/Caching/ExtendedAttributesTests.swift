import Foundation
import ImageEngine
import Testing
import WebImageTestSupport

/// The xattr calls behind `ImageEngine`, whose typed failures decide when the disk cache falls back
/// to sidecar files.
@Suite("Caching: extended attributes", .offThePool)
struct ExtendedAttributesTests {
    private let name = "user.swift-webimage.test"

    @Test func aValueRoundTripsAndIsRemoved() throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let path = scratch.path + "/file"
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        #expect(throws: ExtendedAttributeError.noSuchAttribute) { try ExtendedAttributes.value(named: name, ofFileAt: path) }
        try ExtendedAttributes.setValue(Data("first".utf8), named: name, ofFileAt: path)
        try ExtendedAttributes.setValue(Data("second".utf8), named: name, ofFileAt: path)
        #expect(try ExtendedAttributes.value(named: name, ofFileAt: path) == Data("second".utf8))
        try ExtendedAttributes.removeValue(named: name, ofFileAt: path)
        #expect(throws: ExtendedAttributeError.noSuchAttribute) { try ExtendedAttributes.value(named: name, ofFileAt: path) }
        #expect(throws: ExtendedAttributeError.noSuchAttribute) { try ExtendedAttributes.removeValue(named: name, ofFileAt: path) }
    }

    @Test func failuresAreTyped() throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let missing = scratch.path + "/missing"
        #expect(throws: ExtendedAttributeError.noSuchFile) { try ExtendedAttributes.value(named: name, ofFileAt: missing) }
        #expect(throws: ExtendedAttributeError.noSuchFile) {
            try ExtendedAttributes.setValue(Data([1]), named: name, ofFileAt: missing)
        }
        // procfs takes no user attributes, on every Linux (`comm` is writable by its process, so
        // the permission check passes for any user).
        #expect(throws: ExtendedAttributeError.notSupported) {
            try ExtendedAttributes.setValue(Data([1]), named: name, ofFileAt: "/proc/self/comm")
        }
        // No file system keeps a value over 64 KiB.
        let path = scratch.path + "/file"
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        #expect(throws: ExtendedAttributeError.valueTooLarge) {
            try ExtendedAttributes.setValue(Data(count: 65_537), named: name, ofFileAt: path)
        }
    }
}
