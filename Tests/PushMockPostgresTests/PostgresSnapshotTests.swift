import PushMockPostgres
import PushMockStore
import PushMockTestSupport
import Testing

/// An instance learns every snapshot the fleet saves, even one saved while it was not listening:
/// before it first listened, before anyone observed, or while its listening connection was away.
@Suite("The PostgreSQL store tells an instance of every snapshot the fleet saves", .postgres)
struct PostgresSnapshotTests {
    /// The snapshots told to an observer, in order, and the end of the test's bound on a wait.
    final class Told: Sendable {
        let stream: AsyncStream<(key: String, value: [UInt8])?>
        let continuation: AsyncStream<(key: String, value: [UInt8])?>.Continuation

        init() {
            (stream, continuation) = AsyncStream.makeStream()
            let continuation = continuation
            Task {
                try? await Task.sleep(for: TestDeadline.hang)
                continuation.yield(nil)
            }
        }

        /// The first snapshot told for `key`, or nil when none came within the bound.
        func first(_ key: String) async -> [UInt8]? {
            for await told in stream {
                guard let told else { return nil }
                if told.key == key { return told.value }
            }
            return nil
        }
    }

    @Test("a snapshot another instance saved after this one opened, but before anything observed it, is told as soon as something does")
    func savedBeforeObserving() async throws {
        let location = try await PostgresTestDatabase.create()
        let a = try await PostgresDeliveryStore.connect(location, connectPatience: TestDeadline.hang)
        let b = try await PostgresDeliveryStore.connect(location, connectPatience: TestDeadline.hang)
        a.archive("faults", Array("A's".utf8))
        #expect(await eventually { (try? b.archived("faults")) == Array("A's".utf8) }, "B hears of A's snapshot")
        let told = Told()
        b.observeState { key, value in told.continuation.yield((key, value)) }
        #expect(await told.first("faults") == Array("A's".utf8), "what B heard before it was observed is told at once")
        try await a.close()
        try await b.close()
    }

    @Test("a snapshot saved while an instance's listening connection was away (no notification reached it) is read when it listens again")
    func savedWhileAway() async throws {
        let location = try await PostgresTestDatabase.create()
        let b = try await PostgresDeliveryStore.connect(location, connectPatience: TestDeadline.hang)
        let told = Told()
        b.observeState { key, value in told.continuation.yield((key, value)) }
        // Saved with no notification, then B's listening connection is ended: only reading every
        // snapshot again when it listens again finds it.
        try await PostgresTestDatabase.execute(
            "INSERT INTO pushmock_state (key, value) VALUES ('devices', 'quiet'::bytea)", at: location)
        #expect(try b.archived("devices") == nil)
        try await PostgresTestDatabase.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND query ILIKE 'LISTEN%'",
            at: location)
        #expect(await told.first("devices") == Array("quiet".utf8), "the snapshot is told once B listens again")
        #expect(try b.archived("devices") == Array("quiet".utf8))
        try await b.close()
    }

    @Test("a snapshot saved before an instance opens is there when it opens")
    func savedBeforeOpening() async throws {
        let location = try await PostgresTestDatabase.create()
        let a = try await PostgresDeliveryStore.connect(location, connectPatience: TestDeadline.hang)
        a.archive("channels", Array("A's".utf8))
        try await a.close()
        let b = try await PostgresDeliveryStore.connect(location, connectPatience: TestDeadline.hang)
        #expect(try b.archived("channels") == Array("A's".utf8))
        try await b.close()
    }
}
