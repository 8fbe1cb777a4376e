import PushMockStore
import PushMockTestSupport
import Testing

/// The PostgreSQL tests' own server: the one given by `PUSHMOCK_TEST_POSTGRES` or `PG*`, else a
/// throwaway cluster the tests start. Where neither can be had, this test is skipped with the
/// reason, and so is every PostgreSQL suite (the store contract runs without its PostgreSQL case).
@Suite("The PostgreSQL tests' server")
struct PostgresTestServerTests {
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
