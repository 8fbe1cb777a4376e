/// The SQLite store's tables, brought up to date when a file is opened: one migration per
/// version, applied once, in order and each in its own transaction, beside `PostgresSchema` in the
/// PostgreSQL store. A file migrated by a newer PushMock is refused by the store.
///
/// The migrations applied are listed in the table `grdb_migrations`, named after the library the
/// store was first built on; every file written since keeps it.
enum SQLiteSchema {
    /// One version of the tables: its identifier (as kept in the file) and what it changes.
    struct Migration {
        let identifier: String
        let migrate: (SQLiteConnection) throws -> Void
    }

    /// The identifiers a file lists as applied (none for a new file).
    static func applied(_ connection: SQLiteConnection) throws -> [String] {
        let table = try connection.integer("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'grdb_migrations'")
        guard table == 1 else { return [] }
        return try connection.texts("SELECT identifier FROM grdb_migrations")
    }

    /// Whether the file lists a migration this PushMock does not know (a newer one wrote it).
    static func isSuperseded(_ connection: SQLiteConnection, applicationID: Int32) throws -> Bool {
        let known = Set(migrations(applicationID: applicationID).map(\.identifier))
        return try applied(connection).contains { !known.contains($0) }
    }

    /// Applies the migrations the file lacks, each in its own transaction, in order.
    static func migrate(_ pool: SQLitePool, applicationID: Int32) throws {
        try pool.write { try $0.execute("CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)") }
        let done = Set(try pool.write { try applied($0) })
        for migration in migrations(applicationID: applicationID) where !done.contains(migration.identifier) {
            try pool.write { connection in
                try migration.migrate(connection)
                try connection.execute("INSERT INTO grdb_migrations (identifier) VALUES (?)", [.text(migration.identifier)])
            }
        }
    }

    /// Every version, the first of which stamps the file with `applicationID`.
    static func migrations(applicationID: Int32) -> [Migration] {
        [
            Migration(identifier: "1-deliveries") { db in
                try db.execute("PRAGMA application_id = \(applicationID)")
                try db.execute(
                    """
                    CREATE TABLE delivery (
                        id INTEGER PRIMARY KEY,
                        received_at INTEGER NOT NULL,
                        connection_id INTEGER NOT NULL,
                        service TEXT NOT NULL,
                        environment TEXT,
                        device_token TEXT,
                        topic TEXT,
                        push_type TEXT,
                        outcome TEXT NOT NULL,
                        reason TEXT,
                        status INTEGER NOT NULL,
                        project TEXT,
                        body_is_json INTEGER NOT NULL,
                        record BLOB NOT NULL
                    );
                    CREATE INDEX delivery_by_token ON delivery(device_token, id);
                    CREATE INDEX delivery_by_received ON delivery(received_at);
                    CREATE TABLE store_meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
                    """)
            },
            Migration(identifier: "2-state") { db in
                try db.execute("CREATE TABLE server_state (key TEXT PRIMARY KEY, value BLOB NOT NULL)")
            },
            Migration(identifier: "3-shared") { db in
                // What a connection's deliveries have in common (``CompactDelivery``'s shared part),
                // once per connection and change, named by the id of the first delivery that carried
                // it. A row with a `shared_id` keeps only its own part in `record`; one without
                // (written before) keeps the whole ``PackedDelivery``.
                try db.execute(
                    """
                    CREATE TABLE shared (shared_id INTEGER PRIMARY KEY, fields BLOB NOT NULL);
                    ALTER TABLE delivery ADD COLUMN shared_id INTEGER;
                    """)
            },
            Migration(identifier: "4-token-key") { db in
                // The device token is indexed by an integer key (``SQLiteTokenKey``): an index a
                // sixth of the size, and integer comparisons where the text index compared whole
                // tokens.
                try db.addTokenKeyFunction()
                try db.execute(
                    """
                    ALTER TABLE delivery ADD COLUMN token_key INTEGER;
                    UPDATE delivery SET token_key = pushmock_token_key(device_token) WHERE device_token IS NOT NULL;
                    DROP INDEX delivery_by_token;
                    CREATE INDEX delivery_by_token_key ON delivery(token_key, id);
                    """)
            },
            Migration(identifier: "5-relay") { db in
                // What a relay's upstream answered, by delivery id (rows of deliveries no longer
                // kept are deleted with the retention's).
                try db.execute("CREATE TABLE relay (id INTEGER PRIMARY KEY, agrees INTEGER, result BLOB NOT NULL)")
            },
        ]
    }
}
