import PushMockCore
import PushMockPostgres
import PushMockStore
import PushMockTestSupport
import Synchronization
import Testing

@Suite("The PostgreSQL store when the database stops answering", .postgres)
struct PostgresRecoveryTests {
    @Test("a write with no answer is abandoned, retried on fresh connections, and nothing recorded is lost; a removal waits for it")
    func hungConnections() async throws {
        var location = try await PostgresTestDatabase.create()
        let relay = try await TCPRelay.start(to: location.host, port: location.port)
        location.port = relay.port
        let store = try await PostgresDeliveryStore.connect(
            location, retention: 1_000, writePatience: .seconds(1), connectPatience: TestDeadline.hang)
        store.record(SampleDelivery.make(0))
        await store.flush()
        #expect(try await store.query(DeliveryFilter(), limit: 10).total == 1)

        // The pool opens all the connections it may (eight) ...
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<64 { group.addTask { _ = try await store.query(DeliveryFilter(), limit: 10) } }
            try await group.waitForAll()
        }
        // ... and every connection open now (the pool's, the listener's) goes silent mid-conversation.
        relay.swallow()
        let ids = (1...5).map { store.record(SampleDelivery.make($0)) }
        #expect(ids.allSatisfy { $0 > 0 })
        // The removal must first see the five committed, which takes the abandoned write's second.
        let removed = try await store.remove(DeliveryFilter())
        #expect(removed == 6, "the removal removed \(removed) of the 6 recorded deliveries")

        store.record(SampleDelivery.make(6))
        await store.flush()
        let page = try await store.query(DeliveryFilter(), limit: 10)
        #expect(page.total == 1, "after the removal and one more push, \(page.total) deliveries are kept")
        let statistics = await store.statistics()
        #expect(statistics.dropped == 0)
        #expect(statistics.failure == nil, "the store still reports a failure: \(statistics.failure ?? "")")
        try await store.close()
        await relay.close()
    }

    @Test(
        "connections the server ends under load (FATAL 57P01, what a stopping server sends) never crash the process, and every recorded delivery is written once"
    )
    func terminatedUnderLoad() async throws {
        let location = try await PostgresTestDatabase.create()
        let store = try await PostgresDeliveryStore.connect(
            location, retention: 100_000, writePatience: .seconds(2), connectPatience: TestDeadline.hang)
        // Every other connection to the store's database (the writer's, the listener's) is ended
        // again and again while batches are written, as `pg_ctl stop -m fast` ends them.
        let ended = EndedCount()
        let terminator = Task {
            while !Task.isCancelled {
                try? await PostgresTestDatabase.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
                    at: location)
                ended.value.add(1, ordering: .relaxed)
            }
        }
        // 10 000 deliveries at least, and on until the connections were ended 20 times (a loaded
        // machine runs the terminator slower).
        var recorded: [UInt64] = []
        var round = 0
        while round < 400 || (ended.value.load(ordering: .relaxed) < 20 && round < 4_000) {
            for index in 0..<25 { recorded.append(store.record(SampleDelivery.make(round * 25 + index))) }
            try await Task.sleep(for: .milliseconds(5))
            round += 1
        }
        terminator.cancel()
        _ = await terminator.result
        #expect(ended.value.load(ordering: .relaxed) >= 20, "the connections were ended too few times to test anything")
        await store.flush()
        let page = try await store.query(DeliveryFilter(), limit: 200_000)
        #expect(page.total == recorded.count, "the count says \(page.total) of \(recorded.count)")
        let ids = page.deliveries.map(\.id)
        #expect(ids.count == recorded.count, "\(ids.count) rows for \(recorded.count) recorded deliveries")
        #expect(Set(ids) == Set(recorded), "a recorded delivery is missing, or one is there twice")
        #expect(await store.statistics().dropped == 0)
        try await store.close()
    }

    @Test(
        "a start refused by PostgreSQL (no connection slot left for the role) names PostgreSQL's own message at once, not \"no answer\" after the patience",
        .timeLimit(.minutes(2)))
    func refusedAtStart() async throws {
        var location = try await PostgresTestDatabase.create()
        let role = "pushmock_full_" + String(UInt32.random(in: 0...UInt32.max))
        try await PostgresTestDatabase.execute("CREATE ROLE \(role) LOGIN CONNECTION LIMIT 0", at: location)
        location.user = role
        location.password = nil
        // A patience far past the test's time limit: only a refusal heard at once ends the start in time.
        let error = await #expect(throws: StoreError.self) { try await PostgresDeliveryStore.connect(location, connectPatience: .seconds(3600)) }
        #expect(error?.message.contains("too many connections for role") == true, "\(String(describing: error))")
    }
}

/// How many times the connections were ended (shared with the terminating task).
private final class EndedCount: Sendable {
    let value = Atomic<Int>(0)
}
