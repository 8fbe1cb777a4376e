import Foundation
public import Logging
public import PushMockCore
public import PushMockInspection
import PushMockOutbound
public import PushMockStore
public import PushMockTransport
public import ServiceLifecycle

/// The composition root: binds the push listeners for a configuration and runs them as one
/// `Service`.
///
/// ```swift
/// let server = try await PushMockServer.start(configuration: PushMockConfiguration())
/// print("push port", server.pushPort)
/// try await server.run()   // until graceful shutdown or cancellation
/// ```
public final class PushMockServer: Service, Sendable {
    /// The configuration the server started with.
    public let configuration: PushMockConfiguration
    /// The TLS push listener.
    public let pushListener: HTTPListener
    /// The cleartext (h2c + HTTP/1.1) listener, when configured.
    public let cleartextListener: HTTPListener?
    /// The inspection API listener, when configured.
    public let inspectionListener: HTTPListener?
    /// The CONNECT proxy listener, when configured.
    public let proxyListener: HTTPListener?
    /// The metadata server listener, when configured.
    public let metadataListener: HTTPListener?
    /// Every recorded delivery. A push is recorded just after its answer is sent; a read waits for
    /// that, so it finds every push whose answer a client has already read.
    public let store: any DeliveryStore
    /// The inspection port's routes, callable in-process without a socket (what the inspection
    /// listener serves).
    public let inspection: InspectionRouter
    /// Known device tokens (APNs and FCM).
    public let devices: DeviceRegistry
    /// APNs provider-token verification and the credential registry.
    public let tokens: ProviderTokenVerifier
    /// The faults in force.
    public let faults: FaultPlan
    /// OAuth access tokens issued.
    public let accessTokens: AccessTokenStore
    let activities: LiveActivities
    let channels: BroadcastChannelStore
    private let state: ServerState
    private let bootstrap: Bootstrap
    /// Forwards to the configured upstreams, if any.
    let relay: Relay?

    /// The TLS push port actually bound.
    public var pushPort: Int { pushListener.port }
    /// The cleartext port actually bound, if any.
    public var cleartextPort: Int? { cleartextListener?.port }
    /// The inspection port actually bound, if any.
    public var inspectionPort: Int? { inspectionListener?.port }
    /// The CONNECT proxy port actually bound, if any.
    public var proxyPort: Int? { proxyListener?.port }
    /// The metadata server port actually bound, if any.
    public var metadataPort: Int? { metadataListener?.port }

    /// The listeners bound, by role.
    struct Bound {
        var push: HTTPListener?
        var cleartext: HTTPListener?
        var proxy: HTTPListener?
        var inspection: HTTPListener?
        var metadata: HTTPListener?
        var all: [HTTPListener] { [push, cleartext, proxy, inspection, metadata].compactMap { $0 } }
    }

    private init(configuration: PushMockConfiguration, listeners: Bound, push: HTTPListener, components: Components, bootstrap: Bootstrap) {
        self.configuration = configuration
        self.pushListener = push
        self.cleartextListener = listeners.cleartext
        self.proxyListener = listeners.proxy
        self.inspectionListener = listeners.inspection
        self.metadataListener = listeners.metadata
        self.store = components.store
        self.inspection = components.inspection.router
        self.devices = components.devices
        self.tokens = components.tokens
        self.faults = components.faults
        self.accessTokens = components.accessTokens
        self.activities = components.activities
        self.channels = components.channels
        self.state = components.state
        self.relay = components.relay
        self.bootstrap = bootstrap
    }

    private var listeners: [HTTPListener] {
        [pushListener] + [cleartextListener, proxyListener, inspectionListener, metadataListener].compactMap { $0 }
    }

    /// Loads TLS material and binds every listener; fails fast with a readable error.
    public static func start(configuration: PushMockConfiguration, logger: Logger = Logger(label: "pushmock")) async throws -> PushMockServer {
        let bootstrap = try Bootstrap(configuration)
        let components: Components
        var opened: (any DeliveryStore)?
        do {
            let store = try await makeStore(configuration, logger: logger)
            opened = store
            components = try makeComponents(configuration, store: store, logger: logger)
        } catch {
            try? await opened?.close()
            await bootstrap.shutdown()
            throw error
        }
        let bound: Bound
        do {
            bound = try await bootstrap.bind(configuration, components: components, logger: logger)
        } catch {
            await components.relay?.close()
            try? await components.store.close()
            await bootstrap.shutdown()
            throw error
        }
        let push = bound.push!
        if configuration.inspectionPort != nil, configuration.inspectionToken == nil,
            !["127.0.0.1", "::1", "localhost"].contains(configuration.inspectionHost)
        {
            logger.warning(
                "the inspection API listens on \(configuration.inspectionHost) without a token: anyone who reaches it can read every recorded push and change faults; set --inspection-token"
            )
        }
        return PushMockServer(
            configuration: configuration,
            listeners: bound,
            push: push,
            components: components,
            bootstrap: bootstrap
        )
    }

    /// Serves until graceful shutdown or cancellation, then drains every listener and writes what
    /// the store has queued.
    public func run() async throws {
        await withTaskGroup(of: Void.self) { group in
            for listener in listeners {
                group.addTask { try? await listener.run() }
            }
        }
        // The records the last answers left are kept before the relay and the store close.
        await state.answersSettled()
        activities.saveChanged()
        await relay?.close()
        try await store.close()
        await bootstrap.shutdown()
    }

    /// Back to the configured state, as `POST /api/v1/reset` does: deliveries cleared, faults and
    /// devices as configured, simulated activities and channels, access tokens and connections'
    /// APNs token bindings forgotten.
    public func reset() async throws {
        try await state.reset()
    }

    /// Stops every listener gracefully (GOAWAY, in-flight streams finish), then writes what the
    /// store has queued and closes it.
    public func shutdown() async {
        for listener in listeners {
            await listener.shutdown()
        }
        await state.answersSettled()
        activities.saveChanged()
        await relay?.close()
        do {
            try await store.close()
        } catch {
            Logger(label: "pushmock").error("the store could not be closed cleanly", metadata: ["error": "\(error)"])
        }
    }
}

extension OAuthTokenEndpoint {
    /// The token endpoint `fcm` configures, for `accounts`.
    init(_ fcm: FCMConfiguration, accounts: [ServiceAccount]) {
        self.init(
            accounts: accounts, extraAudiences: fcm.extraTokenAudiences, tokenLifetime: fcm.accessTokenLifetime, ownTokenPath: fcm.tokenPath,
            userClients: fcm.userClients, refreshTokens: fcm.refreshTokens)
    }
}
