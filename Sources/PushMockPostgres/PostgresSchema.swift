import Logging
import PostgresNIO

/// The store's tables, brought up to date at start under an advisory lock (several instances may
/// start at once). Every name starts with `pushmock_`, so the store can share a database.
enum PostgresSchema {
    /// Each version's statements, in order; a version is applied once, in one transaction.
    static let migrations: [[PostgresQuery]] = [
        [
            "CREATE SEQUENCE pushmock_id_block",
            "CREATE SEQUENCE pushmock_seq",
            """
            CREATE TABLE pushmock_delivery (
                id BIGINT PRIMARY KEY,
                seq BIGINT NOT NULL DEFAULT nextval('pushmock_seq'),
                received_at BIGINT NOT NULL,
                connection_id BIGINT NOT NULL,
                service TEXT NOT NULL,
                environment TEXT,
                device_token TEXT,
                topic TEXT,
                push_type TEXT,
                outcome TEXT NOT NULL,
                reason TEXT,
                status BIGINT NOT NULL,
                project TEXT,
                body_is_json BOOLEAN NOT NULL,
                record BYTEA NOT NULL
            )
            """,
            "CREATE UNIQUE INDEX pushmock_delivery_by_seq ON pushmock_delivery (seq)",
            "CREATE INDEX pushmock_delivery_by_token ON pushmock_delivery (device_token, seq)",
            "CREATE INDEX pushmock_delivery_by_received ON pushmock_delivery (received_at)",
            "CREATE TABLE pushmock_meta (key TEXT PRIMARY KEY, value BIGINT NOT NULL)",
            "INSERT INTO pushmock_meta (key, value) VALUES ('count', 0)",
            "CREATE TABLE pushmock_state (key TEXT PRIMARY KEY, value BYTEA NOT NULL)",
        ],
        [
            // What each `count` fault has left, counted for the whole fleet (one row per fault), and
            // how many fires are taken by requests not answered yet.
            "CREATE TABLE pushmock_fault_fire (key TEXT PRIMARY KEY, remaining BIGINT NOT NULL, held BIGINT NOT NULL DEFAULT 0)"
        ],
        [
            // What a connection's deliveries have in common (``CompactDelivery``'s shared part), once
            // per connection and change, named by the id of the first delivery that carried it. A
            // delivery with a `shared_id` keeps only its own part in `record`; one without (written
            // before this version) keeps the whole ``PackedDelivery``.
            "CREATE TABLE pushmock_shared (shared_id BIGINT PRIMARY KEY, fields BYTEA NOT NULL)",
            "ALTER TABLE pushmock_delivery ADD COLUMN shared_id BIGINT",
        ],
        [
            // Keys in byte order: a Live Activity's turn reads the entries of its timeline past the
            // last one the instance has (`activity-entry:<id>/<number>`) by range.
            #"CREATE INDEX pushmock_state_in_byte_order ON pushmock_state (key COLLATE "C")"#
        ],
        [
            // What a relay's upstream answered, by delivery id (rows whose delivery is gone are
            // deleted with the shared fields' cleanup).
            "CREATE TABLE pushmock_relay (id BIGINT PRIMARY KEY, agrees BOOLEAN, result BYTEA NOT NULL)"
        ],
    ]

    /// The lock that start-up migrations take ("PMmg").
    static let migrationLock: Int64 = 0x504D_6D67

    static func migrate(_ client: PostgresClient, logger: Logger) async throws {
        try await client.withConnection { connection in
            try await connection.withTransaction(logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(\(migrationLock))", logger: logger)
                try await connection.query("CREATE TABLE IF NOT EXISTS pushmock_schema (version BIGINT NOT NULL)", logger: logger)
                var version: Int64?
                for try await value in try await connection.query("SELECT version FROM pushmock_schema", logger: logger).decode(Int64.self) {
                    version = value
                }
                if version == nil {
                    try await connection.query("INSERT INTO pushmock_schema (version) VALUES (0)", logger: logger)
                }
                let current = Int(version ?? 0)
                guard current <= migrations.count else {
                    throw PostgresSchemaError(
                        description: "the database has schema version \(current), newer than this PushMock's \(migrations.count); upgrade PushMock")
                }
                for statements in migrations.dropFirst(current) {
                    for statement in statements {
                        try await connection.query(statement, logger: logger)
                    }
                }
                try await connection.query("UPDATE pushmock_schema SET version = \(Int64(migrations.count))", logger: logger)
            }
        }
    }
}

struct PostgresSchemaError: Error, CustomStringConvertible {
    let description: String
}
