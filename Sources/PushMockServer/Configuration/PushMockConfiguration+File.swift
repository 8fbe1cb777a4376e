import Foundation
import PushMockCore

extension PushMockConfiguration {
    /// Reads a JSON configuration file onto `self` (the defaults, usually): every key is optional,
    /// unknown keys and wrong types are errors naming the file, the path and the reason. Relative
    /// paths inside the file are relative to the file's folder. See `Examples/pushmock.json`.
    public mutating func load(file path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PushMockError(code: .invalidConfiguration, message: "\(path): cannot read the configuration file")
        }
        try load(contents: Array(data), path: path)
    }

    /// Reads configuration file `contents` as if from `path` (relative paths resolve against its
    /// folder). Any input gives a configuration or an error, never a crash (`scripts/fuzz config`).
    public mutating func load(contents: [UInt8], path: String) throws {
        do {
            try read(contents: contents, path: path)
        } catch let error as ConfigError {
            throw PushMockError(code: .invalidConfiguration, message: error.description)
        }
    }

    private mutating func read(contents: [UInt8], path: String) throws {
        let data = Data(contents)
        guard let json = JSONValue.parse(contents) else {
            var detail = "not valid JSON (RFC 8259: no comments, no trailing commas)"
            do {
                _ = try JSONSerialization.jsonObject(with: data)
            } catch {
                detail += ": \(error.localizedDescription)"
            }
            throw PushMockError(code: .invalidConfiguration, message: "\(path): \(detail)")
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        func resolve(_ file: String) -> String {
            file.hasPrefix("/") ? file : URL(fileURLWithPath: folder).appendingPathComponent(file).path
        }
        var root = try ConfigObject(file: path, path: "", value: json)
        try loadListeners(&root, resolve: resolve)
        try loadLimits(&root)
        if let hosts = try root.strings("inspectionAllowedHosts") { inspectionAllowedHosts += hosts }
        if let cap = try root.int("maxEventSubscribers", in: 1...100_000) { maxEventSubscribers = cap }
        if let types = try root.json("activityTypes") {
            try loadActivityTypes(types, root: root, resolve: resolve)
        }
        if let text = try root.string("mode") {
            guard let mode = Mode(rawValue: text) else {
                throw root.error("mode", "must be one of \(Mode.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            self.mode = mode
        }
        if let seed = try root.uint64("idSeed") { idSeed = seed }
        if let seed = try root.uint64("faultSeed") { faultSeed = seed }
        if var apnsObject = try root.object("apns") {
            try loadAPNS(&apnsObject, resolve: resolve)
        }
        if var fcmObject = try root.object("fcm") {
            try loadFCM(&fcmObject, resolve: resolve)
        }
        if var relayObject = try root.object("relay") {
            try loadRelay(&relayObject, resolve: resolve)
        }
        if var live = try root.object("liveActivity") {
            try loadLiveActivity(&live)
        }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        for (token, device) in try root.objectMap("devices") ?? [] {
            apns.devices[token] = try DeviceRecord(config: device, now: now)
        }
        if let rules = try root.objects("faults") {
            faults += try rules.enumerated().map { try FaultRule(config: $1, index: $0) }
        }
        try root.finish()
    }

    /// Where the server listens: host, ports, TLS material, the inspection port and its token.
    private mutating func loadListeners(_ root: inout ConfigObject, resolve: (String) -> String) throws {
        if let host = try root.string("host") { self.host = host }
        if let port = try root.int("port", in: 0...65535) { pushPort = port }
        if let port = try root.int("cleartextPort", in: 0...65535) { cleartextPort = port }
        if let transparent = try root.bool("transparent") { self.transparent = transparent }
        if let port = try root.int("proxyPort", in: 0...65535) { proxyPort = port }
        if let port = try root.int("metadataPort", in: 0...65535) { metadataPort = port }
        if let cert = try root.string("cert") {
            guard let key = try root.string("key") else { throw root.error("key", "cert and key go together") }
            tls = .files(certificateChain: resolve(cert), privateKey: resolve(key))
        } else if try root.string("key") != nil {
            throw root.error("cert", "cert and key go together")
        }
        if let host = try root.string("inspectionHost") { inspectionHost = host }
        if root.isNull("inspectionPort") {
            inspectionPort = nil
        } else if let port = try root.int("inspectionPort", in: 0...65535) {
            inspectionPort = port
        }
        if let token = try root.string("inspectionToken") {
            guard !token.isEmpty else { throw root.error("inspectionToken", "must not be empty (leave it out for no token)") }
            inspectionToken = token
        }
    }

    /// Limits and retention: the store, its retention, body size, timeouts, threads, connections.
    private mutating func loadLimits(_ root: inout ConfigObject) throws {
        if let limit = try root.int("broadcastChannelLimit", in: 1...1_000_000) { broadcastChannelLimit = limit }
        if let retention = try root.int("retention", in: 1...10_000_000) { self.retention = retention }
        if let text = try root.string("store") {
            do { store = try StoreLocation(parsing: text) } catch let error as PushMockError { throw root.error("store", error.message) }
        }
        if let text = try root.string("retentionAge") {
            guard let age = Self.duration(text) else {
                throw root.error("retentionAge", "expected a duration such as 24h, 90m or 3600s, got \(text)")
            }
            retentionAge = age
        }
        if let size = try root.int("maxBodySize", in: 1...(64 << 20)) { maxRequestBodySize = size }
        if root.isNull("idleTimeout") {
            idleTimeoutSeconds = nil
        } else if let seconds = try root.int("idleTimeout", in: 0...(7 * 86400)) {
            idleTimeoutSeconds = seconds == 0 ? nil : Int64(seconds)
        }
        if let threads = try root.int("threads", in: 1...256) { self.threads = threads }
        if let cap = try root.int("maxConnections", in: 1...10_000_000) { maxConnections = cap }
        if let cap = try root.int("maxConnectionsPerClient", in: 1...10_000_000) { maxConnectionsPerClient = cap }
        if root.isNull("protocolDeadline") {
            protocolDeadlineSeconds = nil
        } else if let seconds = try root.int("protocolDeadline", in: 1...3600) {
            protocolDeadlineSeconds = Int64(seconds)
        }
    }

    /// The `fcm` object: service accounts, the token endpoint, registration tokens, Instance ID,
    /// user credentials.
    private mutating func loadFCM(_ fcmObject: inout ConfigObject, resolve: (String) -> String) throws {
        for file in try fcmObject.strings("serviceAccounts") ?? [] {
            fcm.serviceAccounts.append(.file(resolve(file)))
        }
        if let path = try fcmObject.string("tokenPath") {
            guard path.hasPrefix("/") else { throw fcmObject.error("tokenPath", "must start with /") }
            fcm.tokenPath = path
        }
        if let audiences = try fcmObject.strings("tokenAudiences") { fcm.extraTokenAudiences += audiences }
        if let lifetime = try fcmObject.int("accessTokenLifetime", in: 1...86400) { fcm.accessTokenLifetime = .seconds(lifetime) }
        if let strict = try fcmObject.bool("strictRegistrationTokens") { fcm.strictRegistrationTokens = strict }
        if let required = try fcmObject.bool("requireAccessTokenAuth") { fcm.requireAccessTokenAuth = required }
        if let mode = try fcmObject.string("instanceID") {
            guard let parsed = InstanceIDMode(rawValue: mode) else {
                throw fcmObject.error(
                    "instanceID", "must be one of \(InstanceIDMode.allCases.map(\.rawValue).joined(separator: ", ")), got \"\(mode)\"")
            }
            fcm.instanceID = parsed
        }
        if let days = try fcmObject.int("staleTokenDays", in: 0...36500) {
            fcm.staleTokenAfter = days == 0 ? nil : .seconds(Int64(days) * 86_400)
        }
        if var users = try fcmObject.object("userCredentials") {
            if let clients = try users.objects("clients") {
                fcm.userClients = []
                for var client in clients {
                    guard let id = try client.string("clientId"), !id.isEmpty else { throw client.error("clientId", "is required") }
                    fcm.userClients.append(.init(clientID: id, clientSecret: try client.string("clientSecret")))
                    try client.finish()
                }
            }
            if let tokens = try users.strings("refreshTokens") { fcm.refreshTokens = tokens }
            if let projects = try users.strings("projects") { fcm.userProjects += projects }
            try users.finish()
        }
        try fcmObject.finish()
    }

    /// The `liveActivity` object: the payload rules' profile and the simulated device's limits.
    private mutating func loadLiveActivity(_ live: inout ConfigObject) throws {
        if let text = try live.string("profile") {
            guard let profile = LiveActivityProfile(rawValue: text) else { throw live.error("profile", "must be strict or apple") }
            apns.options.liveActivity.profile = profile
        }
        if let age = try live.int("maxAge", in: 0...(30 * 86400)) { apns.options.liveActivity.maxAge = .seconds(age) }
        if let ahead = try live.int("maxAhead", in: 0...(30 * 86400)) { apns.options.liveActivity.maxAhead = .seconds(ahead) }
        if let ignore = try live.bool("ignoreInputPushOnUpdate") { apns.options.liveActivity.ignoreInputPushOnUpdate = ignore }
        if let presets = try live.bool("presets") { activityTypePresets = presets }
        if let budget = try live.int("priorityBudgetPerHour", in: 1...100_000) { liveActivityLimits.priorityBudgetPerHour = budget }
        if let budget = try live.int("pushToStartBudgetPerHour", in: 1...100_000) { liveActivityLimits.pushToStartBudget = budget }
        if let budget = try live.int("backgroundBudget", in: 1...100_000) { liveActivityLimits.backgroundBudget = budget }
        if let seconds = try live.double("renderIntervalSeconds", in: 0.001...3600) {
            liveActivityLimits.renderInterval = .milliseconds(Int64((seconds * 1000).rounded()))
        }
        // Hours up to a year: a finite, in-range number, so the conversion below cannot trap.
        if let hours = try live.double("endAfterHours", in: 0.001...8760) {
            liveActivityLimits.endAfterStart = .milliseconds(Int64(hours * 3_600_000))
        }
        if let hours = try live.double("removeAfterHours", in: 0.001...8760) {
            liveActivityLimits.removeAfterStart = .milliseconds(Int64(hours * 3_600_000))
        }
        if let hours = try live.double("dismissAfterEndHours", in: 0...8760) {
            liveActivityLimits.dismissAfterEnd = .milliseconds(Int64(hours * 3_600_000))
        }
        if let count = try live.int("maxActivities", in: 1...1_000_000) { liveActivityLimits.maxActivities = count }
        if let count = try live.int("maxTimeline", in: 1...100_000) { liveActivityLimits.maxTimeline = count }
        if let kib = try live.int("maxTimelineKiB", in: 1...1_048_576) { liveActivityLimits.maxTimelineBytes = kib << 10 }
        if let mib = try live.int("maxMemoryMiB", in: 1...65_536) { liveActivityLimits.maxBytes = mib << 20 }
        try live.finish()
    }

    /// `activityTypes`: declarations by Swift name, or the path of the app's Swift source.
    private mutating func loadActivityTypes(_ types: JSONValue, root: ConfigObject, resolve: (String) -> String) throws {
        switch types {
        case .string(let source):
            // The app's Swift source: read by the `pushmock` executable (PushMockSwiftSource), not here.
            activityTypeSources.append(resolve(source))
        case .object(let named):
            for (name, body) in named {
                activityTypes[name] = try ActivityTypeDeclaration(name: name, config: body, file: root.file, path: "activityTypes.\(name)")
            }
        default:
            throw root.error(
                "activityTypes",
                "expected an object of type declarations by Swift name, or the path of the app's Swift source (a .swift file or a folder)")
        }
    }

    private mutating func loadRelay(_ object: inout ConfigObject, resolve: (String) -> String) throws {
        if let text = try object.string("mode") {
            guard let mode = RelayConfiguration.Mode(rawValue: text) else {
                throw object.error("mode", "must be one of \(RelayConfiguration.Mode.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            relay.mode = mode
        }
        if var apns = try object.object("apns") {
            guard let url = try apns.string("url") else { throw apns.error("url", "is required") }
            var credential: RelayConfiguration.APNSCredential?
            if let key = try apns.string("key") {
                guard let keyID = try apns.string("keyId"), let teamID = try apns.string("teamId") else {
                    throw apns.error("key", "goes with keyId and teamId")
                }
                credential = .token(key: .file(resolve(key)), keyID: keyID, teamID: teamID)
            }
            if let certificate = try apns.string("certificate") {
                guard credential == nil else { throw apns.error("certificate", "either key or certificate, not both") }
                credential = .certificate(chain: .file(resolve(certificate)), key: .file(resolve(try apns.string("certificateKey") ?? certificate)))
            }
            relay.apns = .init(url: url, credential: credential)
            try apns.finish()
        }
        if var fcm = try object.object("fcm") {
            guard let url = try fcm.string("url") else { throw fcm.error("url", "is required") }
            relay.fcm = .init(url: url, serviceAccount: try fcm.string("serviceAccount").map { .file(resolve($0)) })
            try fcm.finish()
        }
        if var match = try object.object("match") {
            if let service = try match.string("service") {
                guard service == "apns" || service == "fcm" else { throw match.error("service", "must be apns or fcm") }
                relay.match.service = Delivery.Service(rawValue: service)
            }
            relay.match.topic = try match.string("topic")
            relay.match.token = try match.string("token")
            relay.match.project = try match.string("project")
            try match.finish()
        }
        if let limit = try object.int("queueLimit", in: 1...10_000_000) { relay.queueLimit = limit }
        if let bytes = try object.int("queueBytes", in: 1...(1 << 40)) { relay.queueBytes = bytes }
        if let limit = try object.int("passthroughLimit", in: 1...1_000_000) { relay.passthroughLimit = limit }
        if let limit = try object.int("passthroughPerConnection", in: 1...1_000_000) { relay.passthroughPerConnection = limit }
        if let seconds = try object.int("passthroughDeadline", in: 1...600) { relay.passthroughDeadline = .seconds(seconds) }
        if let concurrency = try object.int("concurrency", in: 1...10_000) { relay.concurrency = concurrency }
        if let seconds = try object.int("timeout", in: 1...600) { relay.timeout = .seconds(seconds) }
        if let seconds = try object.int("connectTimeout", in: 1...600) { relay.connectTimeout = .seconds(seconds) }
        if let attempts = try object.int("attempts", in: 1...20) { relay.attempts = attempts }
        if let file = try object.string("caFile") { relay.trustedCAs = .file(resolve(file)) }
        try object.finish()
    }

    private mutating func loadAPNS(_ object: inout ConfigObject, resolve: (String) -> String) throws {
        if let text = try object.string("environment") {
            guard let environment = APNSEnvironment(rawValue: text) else { throw object.error("environment", "must be sandbox or production") }
            apns.defaultEnvironment = environment
        }
        for var key in try object.objects("keys") ?? [] {
            guard let keyID = try key.string("keyId"), let teamID = try key.string("teamId") else {
                throw ConfigObject.error(key.file, key.path, "keyId and teamId are required")
            }
            let source: APNSConfiguration.Key.Source
            if let file = try key.string("path") {
                source = .file(resolve(file))
            } else if let pem = try key.string("pem") {
                source = .pem(pem)
            } else {
                throw ConfigObject.error(key.file, key.path, "path (a .p8 file) or pem is required")
            }
            var scope = APNSSigningKey.Scope.both
            if let text = try key.string("environment") {
                guard let parsed = APNSSigningKey.Scope(rawValue: text) else { throw key.error("environment", "must be sandbox, production or both") }
                scope = parsed
            }
            let topics = try key.strings("topics")
            try key.finish()
            apns.keys.append(.init(keyID: keyID, teamID: teamID, source: source, scope: scope, topics: topics))
        }
        for var bundle in try object.objects("bundles") ?? [] {
            guard let bundleID = try bundle.string("bundleId"), let teamID = try bundle.string("teamId") else {
                throw ConfigObject.error(bundle.file, bundle.path, "bundleId and teamId are required")
            }
            try bundle.finish()
            apns.bundles.append(.init(bundleID: bundleID, teamID: teamID))
        }
        if let roots = try object.strings("trustRoots") {
            apns.certificateTrustRoots = roots.map { .file(resolve($0)) }
        }
        if let streams = try object.int("streamsBeforeAuth", in: 1...1000) { apns.streamsBeforeAuthentication = UInt32(streams) }
        if let closed = try object.bool("closedDeviceRegistry") { apns.closedDeviceRegistry = closed }
        if let allow = try object.bool("allowBackgroundPriority10") { apns.options.rejectBackgroundPriority10 = !allow }
        if let allow = try object.bool("allowTopicMismatch") { apns.options.rejectTopicPushTypeMismatch = !allow }
        if let allow = try object.bool("allowNonJSONBody") { apns.options.rejectNonJSONBody = !allow }
        if let seconds = try object.int("tokenLifetime", in: 1...86400) { apns.options.tokenLifetime = .seconds(seconds) }
        if let seconds = try object.int("tokenRefreshInterval", in: 0...86400) { apns.options.tokenRefreshInterval = .seconds(seconds) }
        try object.finish()
    }
}

extension PushMockConfiguration {
    /// `24h`, `90m`, `3600s` or a number of seconds, positive; nil otherwise.
    public static func duration(_ text: String) -> Duration? {
        let units: [(String, Int64)] = [("h", 3600), ("m", 60), ("s", 1)]
        for (suffix, seconds) in units where text.hasSuffix(suffix) {
            guard let value = Int64(text.dropLast()), value > 0, value <= 10 * 365 * 86_400 / seconds else { return nil }
            return .seconds(value * seconds)
        }
        guard let value = Int64(text), value > 0, value <= 10 * 365 * 86_400 else { return nil }
        return .seconds(value)
    }
}
