import Logging
import NIOCore
import PushMockPostgres
import PushMockStore

extension PushMockServer {
    /// The configured store; a file that cannot be used, or a database that cannot be reached, is
    /// refused with the reason in one line (a URL never with its password).
    /// Trouble writing (a full disk, a database gone) is logged once a second through `logger`.
    static func makeStore(_ configuration: PushMockConfiguration, group: any EventLoopGroup, logger: Logger) async throws -> any DeliveryStore {
        let retention = max(1, configuration.retention)
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
                return try await PostgresDeliveryStore.connect(PostgresLocation(url: url), retention: retention, retentionAge: configuration.retentionAge, eventLoopGroup: group, logger: logger)
            } catch {
                throw PushMockError(code: .storeUnavailable, message: "store: \(error)")
            }
        }
    }
}
