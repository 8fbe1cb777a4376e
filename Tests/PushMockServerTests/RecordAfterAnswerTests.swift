import AsyncHTTPClient
import Dispatch
import PushMockCore
import PushMockServer
import PushMockStore
import PushMockTestSupport
import PushMockTesting
import Synchronization
import Testing

/// A push is recorded once its answer is flushed, so the sender never waits for the store; and
/// whoever reads the store after reading an answer finds its delivery.
@Suite("Pushes recorded after their answers")
struct RecordAfterAnswerTests {
    typealias S = APNSTestServer

    /// The memory store, whose recording waits until the test opens its gate.
    final class GatedStore: DeliveryStore {
        let kept = InMemoryDeliveryStore(retention: 100)
        let gate = DispatchSemaphore(value: 0)
        /// Per record, whether the gate opened before the wait timed out.
        let opened = Mutex<[Bool]>([])

        func record(_ delivery: Delivery) -> UInt64 {
            let inTime = gate.wait(timeout: .now() + .seconds(Int(TestDeadline.hang.components.seconds))) == .success
            opened.withLock { $0.append(inTime) }
            return kept.record(delivery)
        }

        func recordRelay(_ result: RelayResult, forDelivery id: UInt64) { kept.recordRelay(result, forDelivery: id) }
        func query(_ filter: DeliveryFilter, limit: Int) async throws -> DeliveryPage { try await kept.query(filter, limit: limit) }
        func delivery(id: UInt64) async throws -> Delivery? { try await kept.delivery(id: id) }
        func deliveries(after cursor: UInt64, matching filter: DeliveryFilter, limit: Int) async throws -> [Delivery] {
            try await kept.deliveries(after: cursor, matching: filter, limit: limit)
        }
        func remove(_ filter: DeliveryFilter) async throws -> Int { try await kept.remove(filter) }
        func newestID() async throws -> UInt64 { try await kept.newestID() }
        func wait(for filter: DeliveryFilter, count: Int, timeout: Duration) async throws -> Bool {
            try await kept.wait(for: filter, count: count, timeout: timeout)
        }
        func statistics() async -> DeliveryStoreStatistics { await kept.statistics() }
    }

    @Test("an APNs push is answered while its record waits for the store, and is read as soon as it is answered")
    func answeredBeforeRecorded() async throws {
        let gated = GatedStore()
        var configuration = S.configuration()
        // The server's own event loop: its recording blocks it, never the client's.
        configuration.threads = 1
        configuration.store = .sqlite(path: "gated")
        configuration.storeOpeners = [StoreOpener(kind: "gated") { _, _, _ in gated }]
        try await withPushMockServer(configuration) { server in
            try await withHTTPClient { client in
                for round in 1...2 {
                    let status = try await S.push(client, server, issuedAt: S.start / 1000)
                    #expect(status == 200, "answered while the record waits at the gate")
                    gated.gate.signal()
                    let page = try await server.store.query(DeliveryFilter(service: .apns), limit: 10)
                    #expect(page.total == round, "the answered push is there to read")
                    #expect(gated.opened.withLock { $0 } == Array(repeating: true, count: round), "kept after the answer was read")
                }
            }
        }
    }

    @Test("pushes answered together on one connection are recorded in the order they came, each once")
    func batchRecordedInOrder() async throws {
        let (configuration, clock) = LiveActivityTestServer.configuration()
        try await withPushMockServer(configuration) { server in
            let client = try await H2FrameClient.connect(port: server.pushPort, tls: true)
            let jwt = S.token(issuedAt: clock.nowSeconds)
            let ids = (1...12).map { "00000000-0000-0000-0000-" + String(repeating: "0", count: 12 - String($0).count) + String($0) }
            func send(_ index: Int) {
                client.send(
                    streamID: 2 * index + 1, path: "/3/device/\(S.deviceToken)",
                    headers: S.alertHeaders(token: jwt, extra: [("apns-id", ids[index])]), body: S.alertBody)
            }
            // The first push alone: a token connection has one stream until its first valid token.
            send(0)
            #expect(try await client.status(of: 1) == "200")
            for index in 1..<ids.count { send(index) }
            for index in 1..<ids.count { #expect(try await client.status(of: 2 * index + 1) == "200") }
            let page = try await server.store.query(DeliveryFilter(service: .apns), limit: 100)
            #expect(page.deliveries.reversed().map(\.apnsID) == ids, "oldest first, in the order sent")
            #expect(page.total == ids.count)
            await client.close()
        }
    }
}
