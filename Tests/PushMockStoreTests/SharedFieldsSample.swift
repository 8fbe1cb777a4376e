import PushMockCore
import PushMockStore
import Testing

/// What the shared-fields tests of both lasting stores send and how they compare what they read.
enum SharedFieldsSample {
    /// Four pushes on connection 7, the fourth with a header the others lack, and one on
    /// connection 8: three sets of shared fields.
    static func deliveries() -> [Delivery] {
        var sent: [Delivery] = []
        for index in 1...4 {
            var delivery = DeliveryStoreTests.delivery(index)
            if index == 4 { delivery.headers.append(HeaderField(name: "authorization", value: "bearer another")) }
            sent.append(delivery)
        }
        var other = DeliveryStoreTests.delivery(5)
        other.connectionID = 8
        sent.append(other)
        return sent
    }

    /// Expects `read` to be `original` recorded as `id`, every field (compared packed).
    static func expectSame(_ read: Delivery?, _ original: Delivery, id: UInt64) throws {
        let read = try #require(read, "delivery \(id) is missing")
        var expected = original
        expected.id = id
        #expect(PackedDelivery(read).arena == PackedDelivery(expected).arena, "delivery \(id) read back changed")
    }

    /// Expects reading delivery `id`, whose shared fields (named by its own id) were deleted, to
    /// fail with an error that names both.
    static func expectMissingSharedFields(reading id: UInt64, from store: some DeliveryStore) async {
        do {
            _ = try await store.delivery(id: id)
            Issue.record("a delivery without its shared fields was read")
        } catch {
            #expect("\(error)".contains("delivery \(id) names shared fields \(id)"), "\(error)")
        }
    }
}
