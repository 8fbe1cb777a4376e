import PushMockBytes
import PushMockCore
import PushMockTestSupport
import Testing

@testable import PushMockStore

@Suite("A connection's shared fields known without packing")
struct SharedSourceTests {
    static func delivery(authorization: String, topic: String? = "com.example.app", apnsID: String = "A") -> Delivery {
        Delivery(
            receivedAt: 1, connectionID: 7, httpVersion: "2", service: .apns, method: "POST", path: "/3/device/ab",
            headers: [HeaderField(name: "authorization", value: authorization), HeaderField(name: "apns-id", value: apnsID)],
            body: [], bodyIsJSON: true, topic: topic, outcome: .accepted, status: 200
        )
    }

    /// What the shared part packs to, the long way.
    static func packedShared(_ delivery: Delivery) -> [UInt8] {
        CompactDelivery.Layout(delivery).withShared(delivery) { Array($0) }
    }

    @Test("equal strings match and pack to the same bytes, whether they share storage or not; volatile values are not compared")
    func matches() {
        let first = Self.delivery(authorization: "bearer " + String(repeating: "x", count: 40), apnsID: "A")
        let layout = CompactDelivery.Layout(first)
        let source = SharedSource(first, volatile: layout.volatile)
        #expect(layout.volatile != 0, "apns-id is volatile")
        // Same storage, a copy built afresh, and another apns-id (volatile).
        let same = Self.delivery(authorization: first.headers[0].value, apnsID: "B")
        let rebuilt = Self.delivery(authorization: "bearer " + String(repeating: "x", count: 40), apnsID: "C")
        for other in [same, rebuilt] {
            #expect(source.matches(other, volatile: CompactDelivery.Layout(other).volatile))
            #expect(Self.packedShared(other) == Self.packedShared(first))
        }
    }

    @Test("a different byte anywhere, a nil for a value, or canonically equivalent but different bytes do not match")
    func differences() {
        let first = Self.delivery(authorization: "bearer caf\u{E9}")
        let layout = CompactDelivery.Layout(first)
        let source = SharedSource(first, volatile: layout.volatile)
        let decomposed = Self.delivery(authorization: "bearer cafe\u{301}")
        #expect(decomposed.headers[0].value == first.headers[0].value, "Swift's == equates them")
        #expect(Self.packedShared(decomposed) != Self.packedShared(first), "their bytes differ")
        for other in [
            decomposed, Self.delivery(authorization: "bearer cafX"), Self.delivery(authorization: "bearer caf\u{E9}", topic: nil),
            Self.delivery(authorization: "bearer caf\u{E9}", topic: "com.example.other"),
        ] {
            #expect(!source.matches(other, volatile: CompactDelivery.Layout(other).volatile))
        }
    }

    @Test("slots named from the delivery's strings answer as slots named from its packed bytes, over changes, returns and colliding connections")
    func slotsAgree() {
        func on(_ connection: UInt64, _ delivery: Delivery) -> Delivery {
            var moved = delivery
            moved.connectionID = connection
            return moved
        }
        let token = "bearer " + String(repeating: "x", count: 40)
        let sequence: [Delivery] = [
            on(7, Self.delivery(authorization: token, apnsID: "A")),
            on(7, Self.delivery(authorization: token, apnsID: "B")),  // same storage
            on(7, Self.delivery(authorization: "bearer " + String(repeating: "x", count: 40))),  // rebuilt
            on(7, Self.delivery(authorization: "bearer caf\u{E9}")),
            on(7, Self.delivery(authorization: "bearer cafe\u{301}")),  // == to the one before, other bytes
            on(7, Self.delivery(authorization: token, topic: nil)),
            on(7, Self.delivery(authorization: token)),  // back to the first fields, under a new id
            on(7 + UInt64(SharedSlots.count), Self.delivery(authorization: token, topic: "com.example.other")),  // the same slot, another connection
            on(7, Self.delivery(authorization: token)),
            on(8, Self.delivery(authorization: token)),
        ]
        var fromStrings = SharedSlots()
        var fromBytes = SharedSlots()
        var introduced = 0
        for (index, delivery) in sequence.enumerated() {
            let id = UInt64(index + 1)
            let layout = CompactDelivery.Layout(delivery)
            let named = fromStrings.name(delivery, layout: layout, id: id)
            let packed = Self.packedShared(delivery)
            let expected = packed.withByteView { fromBytes.name($0, connectionID: delivery.connectionID, id: id) }
            #expect(named.id == expected.id && named.introduced == expected.introduced, "delivery \(index)")
            #expect(named.fields.bytes == packed && expected.fields.bytes == packed, "delivery \(index)")
            if named.introduced { introduced += 1 }
        }
        // New fields: the first, the two spellings of café, no topic, the first ones again (twice:
        // after no topic, and after the colliding connection took the slot), the colliding
        // connection's, and connection 8's.
        #expect(introduced == 8)
    }
}
