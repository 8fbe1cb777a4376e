import PushMockStore

extension PushMockServer {
    /// The configured store; a file that cannot be used is refused with the reason.
    static func makeStore(_ configuration: PushMockConfiguration) throws -> any DeliveryStore {
        switch configuration.store {
        case .memory:
            return InMemoryDeliveryStore(retention: max(1, configuration.retention))
        case .sqlite(let path):
            do {
                return try SQLiteDeliveryStore(path: path, retention: max(1, configuration.retention), retentionAge: configuration.retentionAge)
            } catch {
                throw PushMockError(code: .storeUnavailable, message: "store sqlite:\(path): \(error)")
            }
        }
    }
}
