public import PushMockCore
public import PushMockTransport

/// Everything `pushmock serve` and ``PushMockServer`` can be told. Defaults serve the push port
/// 127.0.0.1:2197 over TLS with the development certificates in `Certs/`.
public struct PushMockConfiguration: Sendable {
    /// Where the push listener's certificate and key come from.
    public enum TLSSource: Sendable, Equatable {
        /// PEM files on disk: the certificate chain (leaf first) and the private key.
        case files(certificateChain: String, privateKey: String)
        /// PEM text in memory (the test library mints these).
        case pem(certificateChain: String, privateKey: String)
    }

    /// What answers on the push port.
    public enum Mode: String, Sendable, CaseIterable {
        /// The push endpoints (APNs, FCM, OAuth), with `/livez`.
        case push
        /// Every request gets `200` with an `apns-id` and nothing is checked or recorded: the
        /// transport's own ceiling, for `scripts/bench`.
        case acceptAll = "accept-all"
    }

    /// Address the push listeners bind.
    public var host: String = "127.0.0.1"
    /// TLS push port (0 picks a free one).
    public var pushPort: Int = 2197
    /// Optional cleartext port serving h2c (prior knowledge) and HTTP/1.1 on the same endpoints.
    public var cleartextPort: Int?
    /// Transparent mode: the push port answers as the real hosts (`api.push.apple.com`,
    /// `fcm.googleapis.com`, `oauth2.googleapis.com`, `iid.googleapis.com`…) by `:authority`/SNI,
    /// and any other name but loopback gets 421. `pushmock serve --transparent` also moves the
    /// push port to 443.
    public var transparent = false
    /// A CONNECT proxy port (`HTTPS_PROXY=http://127.0.0.1:<port>`): tunnels to the real hosts end
    /// at PushMock with the dev certificate; a CONNECT to any other host gets 403.
    public var proxyPort: Int?
    /// Google's metadata server on this port (cleartext, on the inspection host), for Google's auth
    /// libraries on "GCP" (`GCE_METADATA_HOST`/`GCE_METADATA_IP`): tokens with no key file.
    public var metadataPort: Int?
    /// The folder of development credentials the server serves at `GET /api/v1/credentials`
    /// (``DevMaterialDirectory``); nil serves none.
    public var developmentMaterialFolder: String? = "Certs"
    /// The push listener's certificate and key.
    public var tls: TLSSource = .files(certificateChain: "Certs/server.pem", privateKey: "Certs/server-key.pem")
    /// HTTP/2 SETTINGS each connection starts with.
    public var http2 = HTTP2Settings()
    /// Request bodies are read up to this size; larger ones get 413 and are discarded.
    public var maxRequestBodySize = 64 * 1024
    /// How long a send of the rejections catalogue (the page's "Send it", `pushmock rejections`,
    /// `POST /api/v1/deliveries/{id}/resend`) waits for the push port's answers; one held longer
    /// (a delay fault) is reported as status 0, and its delivery is recorded all the same.
    public var catalogueAnswerDeadline: Duration = .seconds(4)
    /// Seconds a connection may stay idle before GOAWAY `{"reason":"IdleTimeout"}`; `nil` never.
    public var idleTimeoutSeconds: Int64? = 3600
    /// Connections the push port keeps open at once; one over it is closed at once and counted
    /// (`pushmock_transport_events_total{event="connection_over_cap"}`). `nil`: sized from the
    /// process's descriptor limit (RLIMIT_NOFILE), leaving room for the inspection port.
    public var maxConnections: Int?
    /// Connections one client address keeps open on a push port at once (the proxy's and the
    /// cleartext port's counted apart); one more is closed at once and counted
    /// (`…{event="connection_over_client_cap"}`). APNs keeps idle connections an hour, so without
    /// it one client could hold every place for that long. `nil`: no such cap.
    public var maxConnectionsPerClient: Int? = 1_024
    /// Seconds a new connection has to finish its TLS handshake and show its protocol (ALPN and
    /// the HTTP/2 preface, or an HTTP/1.1 request head) before it is closed; `nil` never.
    public var protocolDeadlineSeconds: Int64? = 10
    /// Host names (without port) the inspection port answers besides loopback names and
    /// `inspectionHost`: a browser page whose DNS name was rebound to 127.0.0.1 sends its own
    /// name, which is refused (421).
    public var inspectionAllowedHosts: [String] = []
    /// Open `/api/v1/events` streams at most; one more gets 503.
    public var maxEventSubscribers = 1000
    /// Long-polls waiting at once, at most (nil: half of the inspection port's connection cap
    /// less its reserve, which is also the most this can raise it to).
    public var maxLongPolls: Int?
    /// Seconds graceful shutdown waits for streams in flight.
    public var shutdownGracePeriodSeconds: Int64 = 5
    /// Event loop threads; `nil` uses one per core.
    public var threads: Int?
    /// What answers on the push port.
    public var mode: Mode = .push
    /// Address of the inspection listener (cleartext HTTP/1.1 and h2c). Keep it on loopback.
    public var inspectionHost: String = "127.0.0.1"
    /// Inspection port (0 picks a free one; `nil` disables the inspection API).
    public var inspectionPort: Int? = 2198
    /// When set, the inspection API (`/api/v1/…`, `/metrics`) wants `Authorization: Bearer <token>`
    /// (or `?access_token=` for a browser's EventSource); `/livez` and `/readyz` stay open. Set it
    /// whenever the inspection host is not loopback.
    public var inspectionToken: String?
    /// The server's version, as the inspection port's MCP server tells clients (`pushmock serve` sets it).
    public var serverVersion = "unknown"
    /// The simulated devices' Live Activity limits (8 h / 12 h / 4 h, an optional priority-10
    /// budget, how many activities are kept).
    public var liveActivityLimits = LiveActivityDevice.Limits()
    /// Declared `ActivityAttributes` types by Swift name (config `activityTypes`).
    public var activityTypes: [String: ActivityTypeDeclaration] = [:]
    /// The app's Swift source to read `ActivityAttributes` types from (config `activityTypes` as a
    /// path, `--activity-types`): `.swift` files or folders. The `pushmock` executable reads them
    /// into ``activityTypes`` before the server starts; a declaration given by name wins.
    public var activityTypeSources: [String] = []
    /// `.swift` files and bytes read from ``activityTypeSources`` at most, each path
    /// (`--activity-types-max-files`, `--activity-types-max-bytes`).
    public var activityTypeSourceMaxFiles = 5_000
    public var activityTypeSourceMaxBytes = 32 << 20
    /// Activity types declared at once at most, the presets and the API's among them
    /// (`--max-activity-types`); a declaration of a new type past it is refused with 409.
    public var maxActivityTypes = 1_000
    /// Whether the types popular SDKs define (``ActivityTypePresets``) are checked without a
    /// declaration (config `liveActivity.presets`); a declared type of the same name wins.
    public var activityTypePresets = true
    /// Reads `ActivityAttributes` types from a Swift source text (file name, text), for
    /// `PUT /api/v1/activity-types` with `content-type: text/x-swift`. The `pushmock` executable
    /// sets it; without it such a request is answered 415.
    public var swiftSourceReader: SwiftSourceReader?

    /// The types the server starts with: the presets (when on) under the configured declarations.
    public var startingActivityTypes: [String: ActivityTypeDeclaration] {
        guard activityTypePresets else { return activityTypes }
        return ActivityTypePresets.declarations.merging(activityTypes) { _, declared in declared }
    }
    /// Broadcast channels per app and environment (Apple: 10 000; `CannotCreateChannelConfig` past it).
    public var broadcastChannelLimit = 10_000
    /// Deliveries kept; the oldest are evicted first.
    public var retention = 10_000
    /// Deliveries older than this are deleted (the SQLite store); `nil` keeps them.
    public var retentionAge: Duration?
    /// How long a store that needs a server (PostgreSQL) waits for it at start, its schema brought
    /// up to date, before the start is refused.
    public var storeStartPatience: Duration = .seconds(10)
    /// Where deliveries are kept.
    public var store: StoreLocation = .memory
    /// The stores besides memory this server can open (`StoreOpener.all` from `PushMockStores`:
    /// SQLite and PostgreSQL); the `pushmock` executable registers them.
    public var storeOpeners: [StoreOpener] = []
    /// APNs keys, bundles, trust roots, environment and choices.
    public var apns = APNSConfiguration()
    /// FCM service accounts and the OAuth token endpoint.
    public var fcm = FCMConfiguration()
    /// Upstreams the recorded pushes are forwarded to (off unless one is set).
    public var relay = RelayConfiguration()
    /// The clock (inject a manual one in tests).
    public var clock: PushMockClock = .system
    /// Seed for generated ids (`apns-id`, `apns-unique-id`); `nil` seeds randomly.
    public var idSeed: UInt64?
    /// Faults in force from the start.
    public var faults: [FaultRule] = []
    /// Seed for fault probabilities.
    public var faultSeed: UInt64 = 0

    /// The development material (CA, server certificate, APNs key, FCM service account) this
    /// configuration was built from, when it was minted in memory (`PushMockConfiguration.testing()`
    /// in `PushMockTesting` sets it): clients need the CA and the private keys to talk to the server.
    public var developmentMaterial: DevCertificates?

    /// The defaults.
    public init() {}
}
