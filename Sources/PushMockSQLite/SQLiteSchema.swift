import GRDB

/// The SQLite store's tables, brought up to date when a file is opened: one migration per
/// version, applied once and in order (GRDB's `DatabaseMigrator`), beside `PostgresSchema` in
/// the PostgreSQL store. A file migrated by a newer PushMock is refused by the store.
enum SQLiteSchema {
    /// The migrator for every version, the first of which stamps the file with `applicationID`.
    static func migrator(applicationID: Int32) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("1-deliveries") { db in
            try db.execute(sql: "PRAGMA application_id = \(applicationID)")
            try db.execute(
                sql: """
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
        }
        migrator.registerMigration("2-state") { db in
            try db.execute(sql: "CREATE TABLE server_state (key TEXT PRIMARY KEY, value BLOB NOT NULL)")
        }
        migrator.registerMigration("3-shared") { db in
            // What a connection's deliveries have in common (``CompactDelivery``'s shared part), once
            // per connection and change, named by the id of the first delivery that carried it. A
            // row with a `shared_id` keeps only its own part in `record`; one without (written
            // before) keeps the whole ``PackedDelivery``.
            try db.execute(
                sql: """
                    CREATE TABLE shared (shared_id INTEGER PRIMARY KEY, fields BLOB NOT NULL);
                    ALTER TABLE delivery ADD COLUMN shared_id INTEGER;
                    """)
        }
        migrator.registerMigration("4-token-key") { db in
            // The device token is indexed by an integer key (``SQLiteTokenKey``): an index a sixth
            // of the size, and integer comparisons where the text index compared whole tokens.
            db.add(
                function: DatabaseFunction("pushmock_token_key", argumentCount: 1, pure: true) { values in
                    String.fromDatabaseValue(values[0]).map(SQLiteTokenKey.of)
                })
            try db.execute(
                sql: """
                    ALTER TABLE delivery ADD COLUMN token_key INTEGER;
                    UPDATE delivery SET token_key = pushmock_token_key(device_token) WHERE device_token IS NOT NULL;
                    DROP INDEX delivery_by_token;
                    CREATE INDEX delivery_by_token_key ON delivery(token_key, id);
                    """)
        }
        migrator.registerMigration("5-relay") { db in
            // What a relay's upstream answered, by delivery id (rows of deliveries no longer kept
            // are deleted with the retention's).
            try db.execute(sql: "CREATE TABLE relay (id INTEGER PRIMARY KEY, agrees INTEGER, result BLOB NOT NULL)")
        }
        return migrator
    }
}
