import Testing

@testable import PushMockTransport

@Suite("The open streams table")
struct StreamTableTests {
    final class Box {
        let id: Int32
        init(_ id: Int32) { self.id = id }
    }

    /// Runs `operations` random inserts, removals and lookups on the table and on a Dictionary,
    /// with ids drawn by `nextID`, and checks they agree after every step.
    static func agree(operations: Int, seed: UInt64, nextID: (inout RandomNumberGeneratorWithSeed) -> Int32) {
        var random = RandomNumberGeneratorWithSeed(seed: seed)
        var table = StreamTable<Box>(slots: 16)
        var reference: [Int32: Box] = [:]
        for _ in 0..<operations {
            let id = nextID(&random)
            switch random.next() % 3 {
            case 0:
                let box = Box(id)
                table[id] = box
                reference[id] = box
            case 1:
                #expect(table.removeValue(forKey: id) === reference.removeValue(forKey: id))
            default:
                #expect(table[id] === reference[id])
            }
            #expect(table.count == reference.count)
        }
        for (id, box) in reference {
            #expect(table[id] === box, "stream \(id)")
        }
    }

    @Test("random inserts, removals and lookups agree with a Dictionary: odd increasing ids, ids in a narrow band (long probe chains), any ids")
    func agreesWithDictionary() {
        var next: Int32 = 1
        Self.agree(operations: 20_000, seed: 1) { random in
            // Mostly new ids, sometimes one of the last hundred.
            if random.next() % 2 == 0 {
                next += 2
                return next
            }
            return max(1, next - 2 * Int32(random.next() % 100))
        }
        Self.agree(operations: 20_000, seed: 2) { random in Int32(1 + 2 * (random.next() % 40)) }
        Self.agree(operations: 20_000, seed: 3) { random in Int32(1 + random.next() % 2_000_000_000) }
        // Ids that share a home slot in a table of 16: all collide.
        Self.agree(operations: 5_000, seed: 4) { random in Int32(1 + 32 * (random.next() % 12)) }
    }

    @Test("a stream held across a whole ring of newer ones is kept (overflow), and the ring grows")
    func longLivedStreams() {
        var table = StreamTable<Box>(slots: 16)
        let old = Box(1)
        table[1] = old
        // 2000 newer streams, each opened then closed: every one lands on the old stream's slot once per ring.
        for id in stride(from: Int32(3), to: 4003, by: 2) {
            let box = Box(id)
            table[id] = box
            #expect(table[id] === box)
            #expect(table.removeValue(forKey: id) === box)
        }
        #expect(table[1] === old)
        #expect(table.count == 1)
        // Many long-lived ones at once, then the window moves on.
        let held = stride(from: Int32(5001), to: 5201, by: 2).map { Box($0) }
        for box in held { table[box.id] = box }
        for id in stride(from: Int32(6001), to: 9001, by: 2) {
            table[id] = Box(id)
            _ = table.removeValue(forKey: id)
        }
        for box in held { #expect(table[box.id] === box) }
        #expect(table.count == 1 + held.count)
    }

    @Test("removeAll empties it; it grows past its capacity and keeps everything")
    func growAndClear() {
        var table = StreamTable<Box>(slots: 16)
        let boxes = (0..<1000).map { Box(Int32(2 * $0 + 1)) }
        for box in boxes { table[box.id] = box }
        #expect(table.count == 1000)
        for box in boxes { #expect(table[box.id] === box) }
        table[boxes[0].id] = nil
        #expect(table[boxes[0].id] == nil)
        #expect(table.count == 999)
        table.removeAll()
        #expect(table.count == 0)
        for box in boxes { #expect(table[box.id] == nil) }
    }
}

/// A small seeded generator (SplitMix64), so that a failure can be replayed.
struct RandomNumberGeneratorWithSeed: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
