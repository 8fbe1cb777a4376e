import Foundation
import Logging
import PostgresNIO
import PushMockPostgres
public import PushMockStore

/// A fresh, empty database on the test server for each store under test, so that every test
/// starts with its own ids and tables. The server is `PUSHMOCK_TEST_POSTGRES` (a URL), else the
/// `PG*` variables; `.ci/run` starts one. When it cannot be reached the test fails and says so:
/// it is never skipped.
public enum PostgresTestDatabase {
    public static func server() throws -> PostgresLocation {
        try PostgresLocation(url: ProcessInfo.processInfo.environment["PUSHMOCK_TEST_POSTGRES"])
    }

    /// Creates `pushmock_test_…` and returns where it is.
    public static func create() async throws -> PostgresLocation {
        let server = try server()
        var configuration = PostgresClient.Configuration(
            host: server.host, port: server.port, username: server.user, password: server.password, database: server.database, tls: .disable)
        configuration.options.connectTimeout = .seconds(5)
        let client = PostgresClient(configuration: configuration)
        let run = Task { await client.run() }
        defer { run.cancel() }
        let name = "pushmock_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        do {
            try await client.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"))
        } catch {
            throw TestDatabaseError(
                description:
                    "the PostgreSQL tests need a server: none answered at \(server) (\(String(reflecting: error))). Set PUSHMOCK_TEST_POSTGRES=postgres://user@host:port/postgres or PGHOST/PGPORT/PGUSER; .ci/run starts one."
            )
        }
        var location = server
        location.database = String(name)
        return location
    }

    /// Runs `sql` in the database at `location` (to damage a row, say).
    public static func execute(_ sql: String, at location: PostgresLocation) async throws {
        var configuration = PostgresClient.Configuration(
            host: location.host, port: location.port, username: location.user, password: location.password, database: location.database, tls: .disable
        )
        configuration.options.connectTimeout = .seconds(5)
        let client = PostgresClient(configuration: configuration)
        let run = Task { await client.run() }
        defer { run.cancel() }
        try await client.query(PostgresQuery(unsafeSQL: sql))
    }

    struct TestDatabaseError: Error, CustomStringConvertible {
        let description: String
    }
}
