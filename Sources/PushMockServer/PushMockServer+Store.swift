public import Logging
public import PushMockStore

/// Opens a store of a kind the composition root does not open itself (it opens only memory): the
/// `pushmock` executable registers SQLite and PostgreSQL (`PushMockStores`), so that a test target
/// that adds only `PushMockTesting` builds neither the SQLite store nor postgres-nio.
public struct StoreOpener: Sendable {
    /// What it opens, for errors (`sqlite`, `postgres`).
    public var kind: String
    /// Opens the store at `location` with `options`; nil when `location` is not of its kind.
    public var open: @Sendable (_ location: StoreLocation, _ options: StoreOptions, _ logger: Logger) async throws -> (any DeliveryStore)?

    public init(
        kind: String,
        open: @escaping @Sendable (_ location: StoreLocation, _ options: StoreOptions, _ logger: Logger) async throws -> (any DeliveryStore)?
    ) {
        self.kind = kind
        self.open = open
    }
}

/// What every store is opened with.
public struct StoreOptions: Sendable {
    /// Deliveries kept (at least 1).
    public var retention: Int
    /// Deliveries older than this are deleted; nil keeps them.
    public var retentionAge: Duration?
    /// How long a store that needs a server waits for it at start before it is refused.
    public var startPatience: Duration = .seconds(10)
}

extension PushMockServer {
    /// The configured store; a file that cannot be used, or a database that cannot be reached, is
    /// refused with the reason in one line (a URL never with its password). A kind no opener
    /// registered for is refused by name.
    static func makeStore(_ configuration: PushMockConfiguration, logger: Logger) async throws -> any DeliveryStore {
        let options = StoreOptions(
            retention: max(1, configuration.retention), retentionAge: configuration.retentionAge, startPatience: configuration.storeStartPatience)
        UndecodableRecords.report { line in logger.warning("\(line)") }
        if case .memory = configuration.store {
            return InMemoryDeliveryStore(retention: options.retention)
        }
        for opener in configuration.storeOpeners {
            if let store = try await opener.open(configuration.store, options, logger) { return store }
        }
        throw PushMockError(
            code: .invalidConfiguration,
            message:
                "store \(configuration.store): this server opens only the memory store (the pushmock executable opens SQLite and PostgreSQL; a Swift test that wants them adds PushMockStores and sets configuration.storeOpeners = StoreOpener.all)"
        )
    }
}
