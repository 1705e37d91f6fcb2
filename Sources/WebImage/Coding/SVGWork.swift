import Foundation

/// The drawing work an SVG asks for, read from its elements before librsvg renders it: how many
/// draws its `<use>` references add (each draws the element it names, which may hold more
/// references: ten levels of ten make 10^10 draws in a few kilobytes), and how many filter
/// primitives it holds (librsvg renders a filter on surfaces as large as the area filtered,
/// about 40 bytes a pixel). Both cost in proportion to the pixels rendered, so each is bounded
/// times the output's pixel count.
struct SVGWork {
    /// Elements written in the file.
    var elementCount = 0
    /// Draws of the whole document with every reference expanded (each element once, each
    /// `<use>` its target's draws again), saturating at `Int.max`.
    var drawCount = 0
    /// Filter primitives (`fe...` elements).
    var filterPrimitiveCount = 0

    /// Draws added by references, times output pixels: 2 x 10^9 renders in about a second here
    /// (10^4 draws of a full-canvas rectangle on 1 megapixel took 4.7 s).
    static let maxReferencedDrawPixels = 2_000_000_000
    /// Filter primitives times output pixels: a blur of 4 megapixels took 0.7 s and 166 MB.
    static let maxFilterPixels = 16_000_000

    /// Draws of the whole document times output pixels that render within any time budget in
    /// the calling process (each draw at most the whole output: about a second here); past
    /// it the render may run longer, and goes to a child process a budget can end.
    static let maxInProcessDrawPixels = 2_000_000_000

    /// True when every draw covering all `outputPixels` pixels would still render within
    /// about a second (`maxInProcessDrawPixels`).
    func rendersWithinBudget(outputPixels: Int) -> Bool {
        let work = drawCount.multipliedReportingOverflow(by: max(1, outputPixels))
        return !work.overflow && work.partialValue <= Self.maxInProcessDrawPixels
    }

    /// Why rendering `outputPixels` pixels would cost too much, or nil.
    func excess(outputPixels: Int) -> String? {
        let referenced = max(0, drawCount - elementCount)
        let draws = referenced.multipliedReportingOverflow(by: max(1, outputPixels))
        if draws.overflow || draws.partialValue > Self.maxReferencedDrawPixels {
            return "<use> references that add \(referenced) draws of up to \(outputPixels) pixels each, more than the limit of \(Self.maxReferencedDrawPixels) in all"
        }
        let filters = filterPrimitiveCount.multipliedReportingOverflow(by: max(1, outputPixels))
        if filters.overflow || filters.partialValue > Self.maxFilterPixels {
            return "\(filterPrimitiveCount) filter primitives over \(outputPixels) pixels, more than the limit of \(Self.maxFilterPixels) filtered pixels"
        }
        return nil
    }

    /// The work of `data`'s elements. Tags are read without a full XML parse (libxml2 parses
    /// the file afterwards, and refuses what is not well formed): comments, CDATA, processing
    /// instructions and declarations are skipped.
    init(_ data: Data) {
        let bytes = [UInt8](data)
        // Per element: the elements it holds, the id it names with href (a `<use>`'s target).
        var children: [[Int]] = []
        var reference: [String?] = []
        var ids: [String: Int] = [:]
        var open: [Int] = []
        var at = 0
        func skip(past terminator: [UInt8], from start: Int) -> Int {
            var index = start
            while index + terminator.count <= bytes.count {
                if bytes[index] == terminator[0], bytes[index..<(index + terminator.count)].elementsEqual(terminator) {
                    return index + terminator.count
                }
                index += 1
            }
            return bytes.count
        }
        while at < bytes.count {
            guard bytes[at] == UInt8(ascii: "<") else {
                at += 1
                continue
            }
            let next = at + 1 < bytes.count ? bytes[at + 1] : 0
            if next == UInt8(ascii: "!") {
                if bytes[at...].starts(with: Array("<!--".utf8)) {
                    at = skip(past: Array("-->".utf8), from: at + 4)
                } else if bytes[at...].starts(with: Array("<![CDATA[".utf8)) {
                    at = skip(past: Array("]]>".utf8), from: at + 9)
                } else {
                    at = skip(past: [UInt8(ascii: ">")], from: at + 2)
                }
                continue
            }
            if next == UInt8(ascii: "?") {
                at = skip(past: Array("?>".utf8), from: at + 2)
                continue
            }
            let end = SVGMarkup.tagEnd(in: bytes, from: at + 1)
            let tag = bytes[(at + 1)..<min(end, bytes.count)]
            at = end + 1
            if tag.first == UInt8(ascii: "/") {
                _ = open.popLast()
                continue
            }
            let name = tag.prefix { ![UInt8(ascii: " "), 0x09, 0x0A, 0x0D, UInt8(ascii: "/")].contains($0) }
            let element = children.count
            children.append([])
            reference.append(nil)
            elementCount += 1
            if let parent = open.last { children[parent].append(element) }
            let localName = name.split(separator: UInt8(ascii: ":")).last.map { String(decoding: $0, as: UTF8.self) } ?? ""
            if localName.hasPrefix("fe") { filterPrimitiveCount += 1 }
            let attributes = String(decoding: tag.dropFirst(name.count), as: UTF8.self)
            if let id = Self.attribute("id", in: attributes), ids[id] == nil { ids[id] = element }
            if localName == "use", let target = Self.attribute("href", in: attributes), target.hasPrefix("#") {
                reference[element] = String(target.dropFirst())
            }
            if tag.last != UInt8(ascii: "/") { open.append(element) }
        }
        // Draws per element, children and reference first, without recursion (a hostile file
        // nests deeply); a reference cycle (which librsvg refuses) counts nothing.
        var draws = [Int](repeating: -1, count: children.count)
        var visiting = [Bool](repeating: false, count: children.count)
        func dependencies(_ element: Int) -> [Int] {
            children[element] + (reference[element].flatMap { ids[$0] }.map { [$0] } ?? [])
        }
        for root in children.indices where draws[root] < 0 {
            var stack = [root]
            while let element = stack.last {
                if draws[element] >= 0 {
                    stack.removeLast()
                    continue
                }
                if !visiting[element] {
                    visiting[element] = true
                    for dependency in dependencies(element) where draws[dependency] < 0 && !visiting[dependency] {
                        stack.append(dependency)
                    }
                    continue
                }
                var total = 1
                for dependency in dependencies(element) where draws[dependency] > 0 {
                    let sum = total.addingReportingOverflow(draws[dependency])
                    total = sum.overflow ? .max : sum.partialValue
                }
                draws[element] = total
                stack.removeLast()
            }
        }
        // Every element outside any other is drawn once (the root, or several in a broken file).
        var isHeld = [Bool](repeating: false, count: children.count)
        for held in children { for element in held { isHeld[element] = true } }
        var total = 0
        for element in children.indices where !isHeld[element] {
            let sum = total.addingReportingOverflow(max(0, draws[element]))
            total = sum.overflow ? .max : sum.partialValue
        }
        drawCount = total
    }

    /// The value of attribute `name` (or of a prefixed one, such as `xlink:href`) in `attributes`.
    private static func attribute(_ name: String, in attributes: String) -> String? {
        var rest = Substring(attributes)
        while let range = rest.range(of: name + "=") {
            let before = rest[..<range.lowerBound].last
            rest = rest[range.upperBound...]
            guard before == nil || before == " " || before == ":" || before == "\n" || before == "\t" || before == "\r",
                  let quote = rest.first, quote == "\"" || quote == "'" else { continue }
            let value = rest.dropFirst().prefix { $0 != quote }
            return String(value)
        }
        return nil
    }
}
