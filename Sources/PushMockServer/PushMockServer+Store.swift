import Logging
import PushMockPostgres
import PushMockStore

extension PushMockServer {
    /// The configured store; a file that cannot be used, or a database that cannot be reached, is
    /// refused with the reason in one line (a URL never with its password).
    /// Trouble writing (a full disk, a database gone) is logged once a second through `logger`.
    ///
    /// The PostgreSQL client runs on NIO's shared event loops, not on the push listeners' ones: its
    /// writer's round trips (a batch is about eight) must not wait behind every push a loop has read.
    /// Measured at `-c16 -m100` on one core: on the push loop the writer kept ~60k deliveries a
    /// second and dropped the rest; on its own loop it keeps up at ~130k.
    static func makeStore(_ configuration: PushMockConfiguration, logger: Logger) async throws -> any DeliveryStore {
        let retention = max(1, configuration.retention)
        UndecodableRecords.report { line in logger.warning("\(line)") }
        switch configuration.store {
        case .memory:
            return InMemoryDeliveryStore(retention: retention)
        case .sqlite(let path):
            do {
                return try SQLiteDeliveryStore(path: path, retention: retention, retentionAge: configuration.retentionAge) { line, trouble in
                    if trouble { logger.warning("\(line)") } else { logger.notice("\(line)") }
                }
            } catch {
                throw PushMockError(code: .storeUnavailable, message: "store sqlite:\(path): \(error)")
            }
        case .postgres(let url):
            do {
                return try await PostgresDeliveryStore.connect(PostgresLocation(url: url), retention: retention, retentionAge: configuration.retentionAge, logger: logger)
            } catch {
                throw PushMockError(code: .storeUnavailable, message: "store: \(error)")
            }
        }
    }
}
