import Foundation
import Logging
import PostgresNIO
import PushMockPostgres
public import PushMockStore
public import Testing

/// A fresh, empty database for each store under test, so that every test starts with its own ids
/// and tables.
///
/// Which server, in this order:
/// 1. `PUSHMOCK_TEST_POSTGRES` (a `postgres://` URL), or any `PG*` variable (`PGHOST`, `PGPORT`,
///    `PGUSER`…): that server, whose user may create databases.
/// 2. PostgreSQL's `initdb` and `postgres` installed (Debian's `postgresql`: under
///    `/usr/lib/postgresql/*/bin`, else on `PATH`; `PUSHMOCK_TEST_POSTGRES_BIN` names another
///    folder): a throwaway cluster of this test process, in a temporary folder, started on first
///    use and gone when the process ends (see ``ThrowawayPostgres``).
/// 3. Neither: the PostgreSQL tests are skipped (``Trait/postgres``), with the reason.
public enum PostgresTestDatabase {
    /// Why the PostgreSQL tests are skipped when they are.
    public static let skipReason: Comment =
        "PostgreSQL is not installed: apt-get install postgresql (or brew install postgresql) and the tests start a cluster of their own, or set PUSHMOCK_TEST_POSTGRES=postgres://user@host:port/postgres"

    /// Where the server is given, if it is (`PUSHMOCK_TEST_POSTGRES` or a `PG*` variable).
    static var given: Bool {
        let environment = ProcessInfo.processInfo.environment
        if let url = environment["PUSHMOCK_TEST_POSTGRES"], !url.isEmpty { return true }
        return ["PGHOST", "PGPORT", "PGUSER", "PGDATABASE", "PGPASSWORD"].contains { environment[$0]?.isEmpty == false }
    }

    /// Whether the PostgreSQL tests can run: a server is given, or one can be started here.
    public static var isAvailable: Bool { given || ThrowawayPostgres.binaries() != nil }

    /// The server: the given one, else this process's throwaway cluster (started on first use).
    public static func server() async throws -> PostgresLocation {
        if given { return try PostgresLocation(url: ProcessInfo.processInfo.environment["PUSHMOCK_TEST_POSTGRES"]) }
        return try await ThrowawayPostgres.shared.value
    }

    /// Creates `pushmock_test_…` and returns where it is.
    public static func create() async throws -> PostgresLocation {
        let server = try await server()
        let name = "pushmock_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        do {
            try await execute("CREATE DATABASE \(name)", at: server)
        } catch {
            throw TestDatabaseError(
                description:
                    "the PostgreSQL tests' server did not answer at \(server) (\(String(reflecting: error))). Set PUSHMOCK_TEST_POSTGRES=postgres://user@host:port/postgres or PGHOST/PGPORT/PGUSER for another."
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
        configuration.options.connectTimeout = .seconds(10)
        let client = PostgresClient(configuration: configuration)
        let run = Task { await client.run() }
        defer { run.cancel() }
        try await client.query(PostgresQuery(unsafeSQL: sql))
    }

    struct TestDatabaseError: Error, CustomStringConvertible {
        let description: String
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs a suite or test only where PostgreSQL is given or installed; elsewhere it is skipped
    /// with ``PostgresTestDatabase/skipReason``.
    public static var postgres: Self { .enabled(if: PostgresTestDatabase.isAvailable, PostgresTestDatabase.skipReason) }
}
