import Logging
import PushMockPostgres
import PushMockSQLite
public import PushMockServer
import PushMockStore

extension StoreOpener {
    /// `--store sqlite:PATH`: one file, kept across restarts.
    ///
    /// The trouble it meets writing (a full disk) is logged once a second.
    public static let sqlite = StoreOpener(kind: "sqlite") { location, options, logger in
        guard case .sqlite(let path) = location else { return nil }
        do {
            return try SQLiteDeliveryStore(path: path, retention: options.retention, retentionAge: options.retentionAge) { line, trouble in
                if trouble { logger.warning("\(line)") } else { logger.notice("\(line)") }
            }
        } catch {
            throw PushMockError(code: .storeUnavailable, message: "store sqlite:\(path): \(error)")
        }
    }

    /// `--store postgres://…` (or `postgres` and the `PG*` variables): a database a fleet shares.
    ///
    /// The PostgreSQL client runs on NIO's shared event loops, not on the push listeners' ones: its
    /// writer's round trips (a batch is about eight) must not wait behind every push a loop has
    /// read. Measured at `-c16 -m100` on one core: on the push loop the writer kept ~60k deliveries
    /// a second and dropped the rest; on its own loop it keeps up at ~130k.
    public static let postgres = StoreOpener(kind: "postgres") { location, options, logger in
        guard case .postgres(let url) = location else { return nil }
        do {
            return try await PostgresDeliveryStore.connect(
                PostgresLocation(url: url), retention: options.retention, retentionAge: options.retentionAge,
                connectPatience: options.startPatience, logger: logger)
        } catch {
            throw PushMockError(code: .storeUnavailable, message: "store: \(error)")
        }
    }

    /// Every store `pushmock serve --store` opens besides memory.
    public static let all: [StoreOpener] = [.sqlite, .postgres]
}
