import Testing
@testable import WebImage
import WebImageTestServer
import WebImageTestSupport

/// LRUStorage against the plainest model of least-recently-used order: an array, most recent last.
@Suite("Caching: LRUStorage order", .offThePool)
struct LRUStorageTests {
    @Test(arguments: [1, 2, 3])
    func removesInExactlyTheOrderOfLastUseUnderRandomOperations(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var storage = LRUStorage<Int, Int>()
        var model: [Int] = []   // keys, least recently used first
        var stamp: UInt64 = 0
        for _ in 0..<5_000 {
            stamp += 1
            let key = Int.random(in: 0..<64, using: &random)
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<4:
                #expect((storage.value(forKey: key, stamp: stamp) != nil) == model.contains(key))
                if let index = model.firstIndex(of: key) { model.append(model.remove(at: index)) }
            case 4..<7:
                storage.set(key, forKey: key, cost: key, stamp: stamp)
                model.removeAll { $0 == key }
                model.append(key)
            case 7:
                #expect((storage.removeValue(forKey: key) != nil) == model.contains(key))
                model.removeAll { $0 == key }
            default:
                #expect(storage.removeLeastRecentlyUsed() == model.first)
                if !model.isEmpty { model.removeFirst() }
            }
            #expect(storage.count == model.count)
            #expect(storage.totalCost == model.reduce(0, +))
        }
        while let key = model.first {
            #expect(storage.removeLeastRecentlyUsed() == key)
            model.removeFirst()
        }
        #expect(storage.removeLeastRecentlyUsed() == nil && storage.oldestStamp() == nil)
    }

    @Test func removalsWithoutEvictionsKeepTheOrder() {
        var storage = LRUStorage<Int, Int>()
        for round in 0..<100_000 {
            storage.set(round, forKey: round % 10, cost: 1, stamp: UInt64(round))
            if round % 10 == 9 { for key in 0..<10 { storage.removeValue(forKey: key) } }
        }
        #expect(storage.count == 0)
        for key in 0..<3 { storage.set(key, forKey: key, cost: 1, stamp: UInt64(200_000 + key)) }
        _ = storage.value(forKey: 0, stamp: 300_000)
        #expect(storage.removeLeastRecentlyUsed() == 1)
        #expect(storage.removeLeastRecentlyUsed() == 2)
        #expect(storage.removeLeastRecentlyUsed() == 0)
    }
}
