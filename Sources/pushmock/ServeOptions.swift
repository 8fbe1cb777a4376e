import ArgumentParser
import Foundation
import PushMockCore
import PushMockServer

/// `serve`'s options, grouped as its help shows them. Each group checks its own values and puts
/// them onto the configuration; ``ServeCommand`` applies the file first, then each group.

/// Where and how the push port listens.
struct ListenerOptions: ParsableArguments {
    @Option(help: "Address to bind the push listeners to (default 127.0.0.1).")
    var host: String?

    @Option(name: .customLong("port"), help: "TLS push port, 0 picks a free one (default 2197).")
    var pushPort: Int?

    @Option(help: "Also serve h2c (prior knowledge) and HTTP/1.1 in cleartext on this port.")
    var cleartextPort: Int?

    @Flag(
        help:
            "Answer as the real hosts (api.push.apple.com, fcm.googleapis.com, oauth2.googleapis.com, iid.googleapis.com…) by :authority/SNI, on port 443 unless --port says otherwise; other names but loopback get 421. Point the names at PushMock (/etc/hosts, --add-host, hostAliases) and trust Certs/ca.pem (pushmock trust)."
    )
    var transparent = false

    @Option(
        help:
            "Serve a CONNECT proxy on this port (HTTPS_PROXY=http://127.0.0.1:PORT): tunnels to the real push hosts end at PushMock with the dev certificate; CONNECT to any other host gets 403."
    )
    var proxyPort: Int?

    @Option(
        help:
            "Serve Google's metadata server on this port (on the inspection host): Google's auth libraries get PushMock tokens for the first service account with no key file (GCE_METADATA_HOST=127.0.0.1:PORT GCE_METADATA_IP=127.0.0.1:PORT)."
    )
    var metadataPort: Int?

    @Option(help: "Server certificate chain, PEM (default Certs/server.pem).")
    var cert: String?

    @Option(help: "Server private key, PEM (default Certs/server-key.pem).")
    var key: String?

    @Option(help: "Largest request body read, in bytes (default 65536); APNs answers larger ones 413.")
    var maxBodySize: Int?

    @Option(help: "Seconds before an idle connection gets GOAWAY, 0 never (default 3600).")
    var idleTimeout: Int64?

    @Option(help: "Connections the push port keeps open at once; more are closed at once (default: from the descriptor limit, RLIMIT_NOFILE).")
    var maxConnections: Int?

    @Option(help: "Connections one client address keeps open on the push port at once; more are closed at once (default 1024).")
    var maxConnectionsPerClient: Int?

    @Option(help: "Seconds a new connection has to finish TLS and show its protocol before it is closed, 0 never (default 10).")
    var protocolDeadline: Int64?

    @Option(help: "Event loop threads (default: one per core).")
    var threads: Int?

    @Option(help: "What answers on the push port (default push).")
    var mode: PushMockConfiguration.Mode?

    /// The ports these options give, by flag, for the range check.
    var ports: [(String, Int?)] {
        [("--port", pushPort), ("--cleartext-port", cleartextPort), ("--proxy-port", proxyPort), ("--metadata-port", metadataPort)]
    }

    func check() throws {
        if let maxBodySize, maxBodySize <= 0 { throw ValidationError("--max-body-size must be positive") }
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1") }
        if let idleTimeout, idleTimeout < 0 { throw ValidationError("--idle-timeout must be 0 or more") }
        if let maxConnections, maxConnections < 1 { throw ValidationError("--max-connections must be at least 1 (got \(maxConnections))") }
        if let maxConnectionsPerClient, maxConnectionsPerClient < 1 {
            throw ValidationError("--max-connections-per-client must be at least 1 (got \(maxConnectionsPerClient))")
        }
        if let protocolDeadline, !(0...3600).contains(protocolDeadline) {
            throw ValidationError("--protocol-deadline must be 0 to 3600 seconds (got \(protocolDeadline))")
        }
        if (cert == nil) != (key == nil) { throw ValidationError("--cert and --key go together") }
    }

    func apply(to configuration: inout PushMockConfiguration) {
        if let host { configuration.host = host }
        if transparent {
            configuration.transparent = true
            // The real hosts' port, unless --port (or a file with another port) chose one.
            if configuration.pushPort == PushMockConfiguration().pushPort { configuration.pushPort = 443 }
        }
        if let proxyPort { configuration.proxyPort = proxyPort }
        if let metadataPort { configuration.metadataPort = metadataPort }
        if let pushPort { configuration.pushPort = pushPort }
        if let cleartextPort { configuration.cleartextPort = cleartextPort }
        if let cert, let key { configuration.tls = .files(certificateChain: cert, privateKey: key) }
        if let maxBodySize { configuration.maxRequestBodySize = maxBodySize }
        if let idleTimeout { configuration.idleTimeoutSeconds = idleTimeout > 0 ? idleTimeout : nil }
        if let threads { configuration.threads = threads }
        if let maxConnections { configuration.maxConnections = maxConnections }
        if let maxConnectionsPerClient { configuration.maxConnectionsPerClient = maxConnectionsPerClient }
        if let protocolDeadline { configuration.protocolDeadlineSeconds = protocolDeadline > 0 ? protocolDeadline : nil }
        if let mode { configuration.mode = mode }
    }
}

/// The inspection API and the web page.
struct InspectionOptions: ParsableArguments {
    @Option(help: "Inspection API port on --inspection-host, 0 picks a free one (default 2198).")
    var inspectionPort: Int?

    @Flag(help: "Do not serve the inspection API.")
    var noInspection = false

    @Option(help: "Address of the inspection API; keep it on loopback (default 127.0.0.1).")
    var inspectionHost: String?

    @Option(
        help:
            "Require `Authorization: Bearer <token>` on the inspection API (also read from PUSHMOCK_INSPECTION_TOKEN). When the API listens beyond loopback and none is given, the data directory's inspection-token file is used (made at the first start); `none` serves without one."
    )
    var inspectionToken: String?

    @Option(
        name: .customLong("inspection-allowed-host"),
        help: "A Host name the inspection port answers besides loopback names and --inspection-host (DNS-rebinding guard). Repeatable.")
    var inspectionAllowedHosts: [String] = []

    @Option(help: "Open /api/v1/events streams at most; more get 503 (default 1000).")
    var maxEventSubscribers: Int?

    func check() throws {
        if let maxEventSubscribers, maxEventSubscribers < 1 {
            throw ValidationError("--max-event-subscribers must be at least 1 (got \(maxEventSubscribers))")
        }
    }

    func apply(to configuration: inout PushMockConfiguration, environment: [String: String]) {
        configuration.inspectionAllowedHosts += inspectionAllowedHosts
        if let maxEventSubscribers { configuration.maxEventSubscribers = maxEventSubscribers }
        if let inspectionHost { configuration.inspectionHost = inspectionHost }
        if let inspectionPort { configuration.inspectionPort = inspectionPort }
        if noInspection { configuration.inspectionPort = nil }
        if let token = requestedToken(environment), token != Self.noToken {
            configuration.inspectionToken = token
        }
    }

    /// What `--inspection-token` turns the token off with.
    static let noToken = "none"

    /// The token asked for by the flag or the environment (`none` included), if any.
    func requestedToken(_ environment: [String: String]) -> String? {
        guard let token = inspectionToken ?? environment["PUSHMOCK_INSPECTION_TOKEN"], !token.isEmpty else { return nil }
        return token
    }

    /// Whether `host` is a loopback address or name (the inspection API reaches this machine only).
    static func isLoopback(_ host: String) -> Bool {
        let name = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return name == "localhost" || name == "::1" || name.hasPrefix("127.")
    }

    /// An inspection API that listens beyond loopback with no token asked for takes the data
    /// directory's (made now if it has none): anyone who reaches the port could otherwise read the
    /// keys and reset. Returns the notice to log, nil when nothing was done.
    func applyDefaultToken(
        to configuration: inout PushMockConfiguration, material: DevMaterialDirectory, environment: [String: String]
    ) throws -> String? {
        guard configuration.inspectionPort != nil, configuration.inspectionToken == nil, !Self.isLoopback(configuration.inspectionHost) else {
            return nil
        }
        if requestedToken(environment) == Self.noToken { return nil }
        let (token, file) = try material.inspectionToken()
        configuration.inspectionToken = token
        let source = file.map { "kept in \($0)" } ?? "made for this run"
        return
            "the inspection API listens on \(configuration.inspectionHost): it wants Authorization: Bearer \(token) (the page asks for it once; \(source)); set PUSHMOCK_INSPECTION_TOKEN or --inspection-token to choose it, or none to serve without"
    }
}

/// Where deliveries are kept, and for how long.
struct RecordingOptions: ParsableArguments {
    @Option(help: "Deliveries kept, oldest evicted first (default 10000).")
    var retention: Int?

    @Option(
        help:
            "Where deliveries are kept: memory (default), sqlite:PATH (one file, kept across restarts), postgres://user:password@host:port/db or postgres (the PG* variables; a fleet of PushMocks on one database)."
    )
    var store: String?

    @Option(help: "With an SQLite or PostgreSQL store, delete deliveries older than this: 24h, 90m, 3600s.")
    var retentionAge: String?

    @Option(help: "Seed for generated ids, for reproducible runs.")
    var idSeed: UInt64?

    func check() throws {
        if let retention, retention < 1 { throw ValidationError("--retention must be positive") }
        if let store {
            do { _ = try StoreLocation(parsing: store) } catch let error as PushMockError { throw ValidationError("--\(error.message)") }
        }
        if let retentionAge, PushMockConfiguration.duration(retentionAge) == nil {
            throw ValidationError("--retention-age must be a duration such as 24h, 90m or 3600s (got \(retentionAge))")
        }
    }

    func apply(to configuration: inout PushMockConfiguration) throws {
        if let retention { configuration.retention = retention }
        if let store { configuration.store = try StoreLocation(parsing: store) }
        if let retentionAge { configuration.retentionAge = PushMockConfiguration.duration(retentionAge) }
        if let idSeed { configuration.idSeed = idSeed }
    }
}

/// APNs: keys, bundles, trust, faults, and the rules that can be relaxed.
struct APNSOptions: ParsableArguments {
    @Option(
        name: .customLong("apns-key"),
        help:
            "Register an APNs signing key: KEYID:TEAMID:PATH.p8[:ENV][:TOPIC,…] (ENV: sandbox, production, both). Repeatable; the sample key in Certs/ is always registered."
    )
    var apnsKeys: [String] = []

    @Option(name: .customLong("apns-bundle"), help: "Register a bundle id: ID[:TEAMID] (default team: the sample team PMTEAM0001). Repeatable.")
    var apnsBundles: [String] = []

    @Option(name: .customLong("apns-environment"), help: "Environment for hosts that do not name one (localhost, 127.0.0.1) (default sandbox).")
    var apnsEnvironment: APNSEnvironment?

    @Option(
        name: .customLong("apns-trust-root"), help: "PEM file of a root that client certificates must chain to (default Certs/ca.pem). Repeatable.")
    var apnsTrustRoots: [String] = []

    @Option(
        name: .customLong("apns-streams-before-auth"),
        help: "SETTINGS_MAX_CONCURRENT_STREAMS of a token connection until its first valid provider token (APNs: 1).")
    var streamsBeforeAuth: UInt32?

    @Option(
        name: .customLong("apns-fault"),
        help: "Answer APNs pushes with this reason: REASON[:DEVICE_TOKEN] (e.g. TooManyRequests, Shutdown, Unregistered). Repeatable.")
    var apnsFaults: [String] = []

    @Flag(name: .customLong("closed-device-registry"), help: "Answer BadDeviceToken for device tokens that are not registered.")
    var closedDeviceRegistry = false

    @Flag(name: .customLong("allow-background-priority-10"), help: "Accept background pushes at priority 10 (default: BadPriority).")
    var allowBackgroundPriority10 = false

    @Flag(name: .customLong("allow-topic-mismatch"), help: "Accept a push type whose topic suffix does not match (default: BadTopic).")
    var allowTopicMismatch = false

    @Flag(name: .customLong("allow-non-json-body"), help: "Accept APNs bodies that are not a JSON object (default: BadPayload).")
    var allowNonJSONBody = false

    func check() throws {
        if let streamsBeforeAuth, !(1...1000).contains(streamsBeforeAuth) {
            throw ValidationError("--apns-streams-before-auth must be between 1 and 1000 (got \(streamsBeforeAuth))")
        }
        do {
            for key in apnsKeys { _ = try APNSConfiguration.Key(flag: key) }
            for (index, fault) in apnsFaults.enumerated() { _ = try Self.fault(fault, index: index) }
        } catch {
            throw ValidationError("\(error)")
        }
        for bundle in apnsBundles where bundle.isEmpty || bundle.hasPrefix(":") {
            throw ValidationError("--apns-bundle expects ID[:TEAMID] (got '\(bundle)')")
        }
    }

    /// `REASON[:DEVICE_TOKEN]` as a fault rule.
    static func fault(_ flag: String, index: Int) throws -> FaultRule {
        let parts = flag.split(separator: ":", maxSplits: 1).map(String.init)
        guard let name = parts.first, let reason = APNSRejectionReason.named(name) else {
            throw PushMockError(
                code: .invalidConfiguration,
                message: "--apns-fault \(flag): unknown reason; known: \(APNSRejectionReason.all.map(\.reason).joined(separator: ", "))")
        }
        let token = parts.count > 1 ? parts[1] : nil
        return FaultRule(
            id: "cli-\(index + 1)-\(reason.reason)", match: .init(service: .apns, token: token),
            action: .reject(status: reason.status, reason: reason.reason))
    }

    func apply(to configuration: inout PushMockConfiguration) throws {
        configuration.apns.keys += try apnsKeys.map { try APNSConfiguration.Key(flag: $0) }
        for flag in apnsBundles {
            let parts = flag.split(separator: ":", maxSplits: 1).map(String.init)
            configuration.apns.bundles.append(.init(bundleID: parts[0], teamID: parts.count > 1 ? parts[1] : DevCertificates.sampleAPNSTeamID))
        }
        if let apnsEnvironment { configuration.apns.defaultEnvironment = apnsEnvironment }
        if !apnsTrustRoots.isEmpty { configuration.apns.certificateTrustRoots = apnsTrustRoots.map { .file($0) } }
        if let streamsBeforeAuth { configuration.apns.streamsBeforeAuthentication = streamsBeforeAuth }
        if closedDeviceRegistry { configuration.apns.closedDeviceRegistry = true }
        if allowBackgroundPriority10 { configuration.apns.options.rejectBackgroundPriority10 = false }
        if allowTopicMismatch { configuration.apns.options.rejectTopicPushTypeMismatch = false }
        if allowNonJSONBody { configuration.apns.options.rejectNonJSONBody = false }
        configuration.faults += try apnsFaults.enumerated().map { try Self.fault($1, index: $0) }
    }
}

/// FCM, OAuth and Instance ID.
struct FCMOptions: ParsableArguments {
    @Option(
        name: .customLong("fcm-service-account"),
        help: "Register an FCM service account key file (Google's JSON format). Repeatable; Certs/fcm-service-account.json is always registered.")
    var fcmServiceAccounts: [String] = []

    @Option(name: .customLong("fcm-token-path"), help: "Path of the OAuth2 token endpoint on the push port (default /token).")
    var fcmTokenPath: String?

    @Flag(
        name: .customLong("fcm-lenient-tokens"),
        help: "Accept any <id>:<token> registration token, not only real-looking ones (<id>:APA91b…, 100+ characters).")
    var fcmLenientTokens = false

    @Option(
        help:
            "An FCM registration token or installation ID whose device record has lastActiveAt older than this many days answers 404 UNREGISTERED, as FCM does for stale tokens (default 270; 0 never)."
    )
    var fcmStaleTokenDays: Int?

    @Flag(
        name: .customLong("iid-lenient-auth"),
        help:
            "Accept Instance ID (/iid/…) requests with a bearer token but without the `access_token_auth: true` header (default: 401 Unauthorized, as Instance ID reads it as a server key)."
    )
    var iidLenientAuth = false

    @Option(
        name: .customLong("fcm-user-project"),
        help:
            "A project a user's token (authorized_user credentials) may name as its quota project (x-goog-user-project), besides the service accounts' projects. Repeatable. Others get 403 PERMISSION_DENIED, or 400 for an id no project can have, as from Google."
    )
    var fcmUserProjects: [String] = []

    @Option(
        name: .customLong("iid"),
        help:
            "The Instance ID server API (/iid/…), which Google turns down on 2027-09-29: available (served, with a dated diagnostic on every call) or turned-down (every call answered DeprecatedApi, PushMock's guess at Google's answer then)."
    )
    var instanceID: InstanceIDMode?

    func check() throws {
        if let fcmTokenPath, !fcmTokenPath.hasPrefix("/") {
            throw ValidationError("--fcm-token-path must start with / (got \(fcmTokenPath))")
        }
        if let days = fcmStaleTokenDays, !(0...36500).contains(days) {
            throw ValidationError("--fcm-stale-token-days must be 0 to 36500, got \(days)")
        }
    }

    func apply(to configuration: inout PushMockConfiguration) {
        if let days = fcmStaleTokenDays { configuration.fcm.staleTokenAfter = days == 0 ? nil : .seconds(Int64(days) * 86_400) }
        configuration.fcm.serviceAccounts += fcmServiceAccounts.map { .file($0) }
        if let fcmTokenPath { configuration.fcm.tokenPath = fcmTokenPath }
        if fcmLenientTokens { configuration.fcm.strictRegistrationTokens = false }
        if iidLenientAuth { configuration.fcm.requireAccessTokenAuth = false }
        if let instanceID { configuration.fcm.instanceID = instanceID }
        configuration.fcm.userProjects += fcmUserProjects
    }
}

/// Live Activities: the payload rules, the simulated device, and the app's types.
struct LiveActivityOptions: ParsableArguments {
    @Option(
        help: "Live Activity payload rules: strict (violations get 400 with the rule's reason) or apple (200, recorded as dropped by the device).")
    var liveActivityProfile: LiveActivityProfile?

    @Option(help: "Seconds a Live Activity timestamp may lag behind now before it is stale (default 3600).")
    var liveActivityMaxAge: Int64?

    @Option(help: "Seconds a Live Activity timestamp may be ahead of now (default 300).")
    var liveActivityMaxAhead: Int64?

    @Option(help: "Priority-10 Live Activity updates a simulated device applies per activity per hour (default: no budget).")
    var liveActivityBudget: Int?

    @Option(help: "Push-to-start creations a simulated device accepts per push-to-start token per hour; more are dropped (default: no budget).")
    var liveActivityPushToStartBudget: Int?

    @Option(
        help:
            "Priority-10 updates a Live Activity takes while its app is not running (the device registry's appRunning); then none until the app runs (default: no budget)."
    )
    var liveActivityBackgroundBudget: Int?

    @Option(
        help:
            "Seconds between two renders of a Live Activity: a sooner update shows when they have passed, and a later one arriving first replaces it (default: every update renders at once)."
    )
    var liveActivityRenderInterval: Double?

    @Option(
        help:
            "Read the app's ActivityAttributes types from its Swift source: a .swift file or a folder (a widget extension, or the whole app), searched recursively. Repeatable. Check what is read with `pushmock activity-types PATH`."
    )
    var activityTypes: [String] = []

    @Option(help: "The most .swift files --activity-types reads under one path (default 5000).")
    var activityTypesMaxFiles: Int?

    @Option(help: "The most bytes of Swift source --activity-types reads under one path (default 33554432, 32 MiB).")
    var activityTypesMaxBytes: Int?

    @Option(help: "The most activity types declared at once, the presets and the API's among them (default 1000).")
    var maxActivityTypes: Int?

    @Flag(
        help:
            "Do not check the ActivityAttributes types popular SDKs define (Flutter live_activities, expo-live-activity, Voltra, OneSignal) without a declaration."
    )
    var noActivityTypePresets = false

    func check() throws {
        for (name, value) in [
            ("--live-activity-budget", liveActivityBudget), ("--live-activity-push-to-start-budget", liveActivityPushToStartBudget),
            ("--live-activity-background-budget", liveActivityBackgroundBudget),
        ] {
            if let value, !(1...100_000).contains(value) { throw ValidationError("\(name) must be from 1 to 100000 (got \(value))") }
        }
        if let liveActivityRenderInterval, !(0.001...3600).contains(liveActivityRenderInterval) {
            throw ValidationError("--live-activity-render-interval must be from 0.001 to 3600 seconds (got \(liveActivityRenderInterval))")
        }
        for (name, value) in [("--live-activity-max-age", liveActivityMaxAge), ("--live-activity-max-ahead", liveActivityMaxAhead)] {
            if let value, value < 0 { throw ValidationError("\(name) must be 0 or more") }
        }
        for (name, value) in [
            ("--activity-types-max-files", activityTypesMaxFiles), ("--activity-types-max-bytes", activityTypesMaxBytes),
            ("--max-activity-types", maxActivityTypes),
        ] {
            if let value, value < 1 { throw ValidationError("\(name) must be at least 1 (got \(value))") }
        }
    }

    func apply(to configuration: inout PushMockConfiguration) {
        if let liveActivityProfile { configuration.apns.options.liveActivity.profile = liveActivityProfile }
        if let liveActivityMaxAge { configuration.apns.options.liveActivity.maxAge = .seconds(liveActivityMaxAge) }
        if let liveActivityMaxAhead { configuration.apns.options.liveActivity.maxAhead = .seconds(liveActivityMaxAhead) }
        if let liveActivityBudget { configuration.liveActivityLimits.priorityBudgetPerHour = liveActivityBudget }
        if let liveActivityPushToStartBudget { configuration.liveActivityLimits.pushToStartBudget = liveActivityPushToStartBudget }
        if let liveActivityBackgroundBudget { configuration.liveActivityLimits.backgroundBudget = liveActivityBackgroundBudget }
        if let liveActivityRenderInterval {
            configuration.liveActivityLimits.renderInterval = .milliseconds(Int64((liveActivityRenderInterval * 1000).rounded()))
        }
        configuration.activityTypeSources += activityTypes
        if let activityTypesMaxFiles { configuration.activityTypeSourceMaxFiles = activityTypesMaxFiles }
        if let activityTypesMaxBytes { configuration.activityTypeSourceMaxBytes = activityTypesMaxBytes }
        if let maxActivityTypes { configuration.maxActivityTypes = maxActivityTypes }
        if noActivityTypePresets { configuration.activityTypePresets = false }
    }
}

/// Forwarding to the real services (or any compatible server): off unless an upstream is given.
struct RelayOptions: ParsableArguments {
    @Option(
        help:
            "Forward APNs pushes to this upstream: https://api.sandbox.push.apple.com, https://api.push.apple.com (the push's own environment picks between Apple's two), or another server such as a PushMock. Relayed pushes reach real devices."
    )
    var relayApns: String?

    @Option(help: "The relay's own APNs signing key (.p8) for --relay-apns; the sender's token is never forwarded.")
    var relayApnsKey: String?

    @Option(help: "The key id of --relay-apns-key.")
    var relayApnsKeyId: String?

    @Option(help: "The team id of --relay-apns-key.")
    var relayApnsTeamId: String?

    @Option(help: "Instead of a key: the relay's APNs client certificate, PEM, with its private key in the same file or in --relay-apns-cert-key.")
    var relayApnsCert: String?

    @Option(help: "The private key of --relay-apns-cert, PEM.")
    var relayApnsCertKey: String?

    @Option(help: "Forward FCM sends to this upstream: https://fcm.googleapis.com, or another server such as a PushMock.")
    var relayFcm: String?

    @Option(
        help:
            "The relay's own service account key file (JSON) for --relay-fcm: its token_uri gives the access tokens, its project_id names the project sent to."
    )
    var relayFcmServiceAccount: String?

    @Option(
        help:
            "relay: what PushMock accepts is forwarded, the sender gets PushMock's answer at once (default); shadow: every push is forwarded, rejected ones too; passthrough: the sender gets the upstream's answer (502 without one)."
    )
    var relayMode: RelayConfiguration.Mode?

    @Option(help: "Also trust this CA (PEM) for the upstreams: another PushMock's Certs/ca.pem.")
    var relayCaFile: String?

    @Option(help: "Pushes waiting to be forwarded at most; more are recorded with the relay error \"queue full\" (default 10000).")
    var relayQueueLimit: Int?

    func check() throws {
        if relayApnsKey != nil, relayApnsKeyId == nil || relayApnsTeamId == nil {
            throw ValidationError("--relay-apns-key needs --relay-apns-key-id and --relay-apns-team-id")
        }
        if relayApnsKey != nil, relayApnsCert != nil {
            throw ValidationError("--relay-apns-key and --relay-apns-cert: one or the other")
        }
        let apnsCredentials = [relayApnsKey, relayApnsKeyId, relayApnsTeamId, relayApnsCert, relayApnsCertKey].contains { $0 != nil }
        if relayApns == nil, apnsCredentials {
            throw ValidationError("--relay-apns-key/--relay-apns-cert name the relay's credentials for --relay-apns URL, which is missing")
        }
        if relayFcm == nil, relayFcmServiceAccount != nil {
            throw ValidationError("--relay-fcm-service-account names the relay's account for --relay-fcm URL, which is missing")
        }
        if let relayQueueLimit, relayQueueLimit < 1 {
            throw ValidationError("--relay-queue-limit must be at least 1 (got \(relayQueueLimit))")
        }
    }

    func apply(to configuration: inout PushMockConfiguration) {
        if let relayApns {
            var credential = configuration.relay.apns?.credential
            if let relayApnsKey, let relayApnsKeyId, let relayApnsTeamId {
                credential = .token(key: .file(relayApnsKey), keyID: relayApnsKeyId, teamID: relayApnsTeamId)
            } else if let relayApnsCert {
                credential = .certificate(chain: .file(relayApnsCert), key: .file(relayApnsCertKey ?? relayApnsCert))
            }
            configuration.relay.apns = .init(url: relayApns, credential: credential)
        }
        if let relayFcm {
            configuration.relay.fcm = .init(
                url: relayFcm, serviceAccount: relayFcmServiceAccount.map { .file($0) } ?? configuration.relay.fcm?.serviceAccount)
        }
        if let relayMode { configuration.relay.mode = relayMode }
        if let relayCaFile { configuration.relay.trustedCAs = .file(relayCaFile) }
        if let relayQueueLimit { configuration.relay.queueLimit = relayQueueLimit }
    }
}
