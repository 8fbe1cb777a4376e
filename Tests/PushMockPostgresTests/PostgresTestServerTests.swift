import Foundation
import PushMockStore
import PushMockTestSupport
import Testing

/// The PostgreSQL tests' own server: the one given by `PUSHMOCK_TEST_POSTGRES` or `PG*`, else a
/// throwaway cluster the tests start. Where neither can be had, this test is skipped with the
/// reason, and so is every PostgreSQL suite (the store contract runs without its PostgreSQL case).
@Suite("The PostgreSQL tests' server")
struct PostgresTestServerTests {
    /// A throwaway cluster's holder ends as a test process does: its end of the lifeline closes,
    /// and nothing reads the cluster's output any more. The cluster must stop and its folder go
    /// (a guard killed by SIGPIPE once left half a gigabyte in the temporary folder per run).
    @Test(
        "a throwaway cluster stops, and its folder is removed, when the process holding it ends",
        .enabled(if: ThrowawayPostgres.binaries() != nil, PostgresTestDatabase.skipReason)
    )
    func throwawayClusterEnds() async throws {
        let cluster = try await ThrowawayPostgres.startCluster(drain: false)
        #expect(FileManager.default.fileExists(atPath: "\(cluster.folder)/data/PG_VERSION"))
        try await PostgresTestDatabase.execute("SELECT 1", at: cluster.location)
        cluster.guardian.closeInput()
        let status = try await offThePool { cluster.guardian.wait() }
        #expect(status == 0, "the guard shell ended with \(status)")
        #expect(!FileManager.default.fileExists(atPath: cluster.folder), "\(cluster.folder) is left behind")
        // Nothing answers on its port any more (connection refused).
        await #expect(throws: (any Error).self) { _ = try await RawClient.connect(port: cluster.location.port) }
    }

    @Test("answers, and each test gets a database of its own", .postgres)
    func answers() async throws {
        let first = try await PostgresTestDatabase.create()
        let second = try await PostgresTestDatabase.create()
        #expect(first.database != second.database)
        #expect(first.database.hasPrefix("pushmock_test_"))
        try await PostgresTestDatabase.execute("CREATE TABLE probe (n int)", at: first)
        try await PostgresTestDatabase.execute("INSERT INTO probe VALUES (1)", at: first)
        // The table is in the first database only.
        await #expect(throws: (any Error).self) { try await PostgresTestDatabase.execute("SELECT n FROM probe", at: second) }
    }
}
