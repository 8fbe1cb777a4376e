import ArgumentParser
import Logging
import PushMockCore
import PushMockServer
import ServiceLifecycle
import UnixSignals

/// `pushmock serve`: runs the server until SIGINT or SIGTERM.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run PushMock (defaults: TLS push port 127.0.0.1:2197 with the certificates in Certs/)."
    )

    @Option(help: "Address to bind the push listeners to.")
    var host = "127.0.0.1"

    @Option(name: .customLong("port"), help: "TLS push port (0 picks a free one).")
    var pushPort = 2197

    @Option(help: "Also serve h2c (prior knowledge) and HTTP/1.1 in cleartext on this port.")
    var cleartextPort: Int?

    @Option(help: "Server certificate chain (PEM).")
    var cert = "Certs/server.pem"

    @Option(help: "Server private key (PEM).")
    var key = "Certs/server-key.pem"

    @Option(help: "Largest request body read, in bytes; larger bodies get 413.")
    var maxBodySize = 64 * 1024

    @Option(help: "Seconds before an idle connection gets GOAWAY (0: never).")
    var idleTimeout: Int64 = 3600

    @Option(help: "Event loop threads (default: one per core).")
    var threads: Int?

    @Option(help: "What answers on the push port: \(PushMockConfiguration.Mode.allCases.map(\.rawValue).joined(separator: ", ")).")
    var mode: String = PushMockConfiguration.Mode.push.rawValue

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel = "info"

    @Option(help: "Inspection API port on --inspection-host (0 picks a free one).")
    var inspectionPort = 2198

    @Flag(help: "Do not serve the inspection API.")
    var noInspection = false

    @Option(help: "Address of the inspection API (keep it on loopback).")
    var inspectionHost = "127.0.0.1"

    @Option(help: "Deliveries kept in memory (oldest evicted first).")
    var retention = 10_000

    @Option(name: .customLong("apns-key"), help: "Register an APNs signing key: KEYID:TEAMID:PATH.p8[:ENV][:TOPIC,…] (ENV: sandbox, production, both). Repeatable; the sample key in Certs/ is always registered.")
    var apnsKeys: [String] = []

    @Option(name: .customLong("apns-bundle"), help: "Register a bundle id: ID[:TEAMID] (default team: the sample team PMTEAM0001). Repeatable.")
    var apnsBundles: [String] = []

    @Option(name: .customLong("apns-environment"), help: "Environment for hosts that do not name one (localhost, 127.0.0.1): sandbox or production.")
    var apnsEnvironment = "sandbox"

    @Option(name: .customLong("apns-trust-root"), help: "PEM file of a root that client certificates must chain to (default: Certs/ca.pem). Repeatable.")
    var apnsTrustRoots: [String] = []

    @Flag(name: .customLong("closed-device-registry"), help: "Answer BadDeviceToken for device tokens that are not registered.")
    var closedDeviceRegistry = false

    @Flag(name: .customLong("allow-background-priority-10"), help: "Accept background pushes at priority 10 (default: BadPriority).")
    var allowBackgroundPriority10 = false

    @Flag(name: .customLong("allow-topic-mismatch"), help: "Accept a push type whose topic suffix does not match (default: BadTopic).")
    var allowTopicMismatch = false

    @Flag(name: .customLong("allow-non-json-body"), help: "Accept APNs bodies that are not a JSON object (default: BadPayload).")
    var allowNonJSONBody = false

    @Option(name: .customLong("apns-streams-before-auth"), help: "SETTINGS_MAX_CONCURRENT_STREAMS of a token connection until its first valid provider token (APNs: 1).")
    var streamsBeforeAuth: UInt32 = 1

    @Option(name: .customLong("apns-fault"), help: "Answer APNs pushes with this reason: REASON[:DEVICE_TOKEN] (e.g. TooManyRequests, Shutdown, Unregistered). Repeatable.")
    var apnsFaults: [String] = []

    @Option(help: "Seed for generated ids, for reproducible runs.")
    var idSeed: UInt64?

    func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical (got \(logLevel))")
        }
        guard PushMockConfiguration.Mode(rawValue: mode) != nil else {
            throw ValidationError("--mode must be one of \(PushMockConfiguration.Mode.allCases.map(\.rawValue).joined(separator: ", ")) (got \(mode))")
        }
        for (name, port) in [("--port", pushPort), ("--cleartext-port", cleartextPort ?? 0)] where !(0...65535).contains(port) {
            throw ValidationError("\(name) must be between 0 and 65535 (got \(port))")
        }
        guard maxBodySize > 0 else { throw ValidationError("--max-body-size must be positive") }
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1") }
        guard (0...65535).contains(inspectionPort) else { throw ValidationError("--inspection-port must be between 0 and 65535 (got \(inspectionPort))") }
        guard retention > 0 else { throw ValidationError("--retention must be positive") }
        guard APNSEnvironment(rawValue: apnsEnvironment) != nil else {
            throw ValidationError("--apns-environment must be sandbox or production (got \(apnsEnvironment))")
        }
        for key in apnsKeys {
            do { _ = try APNSConfiguration.Key(flag: key) } catch { throw ValidationError("\(error)") }
        }
        for fault in apnsFaults {
            do { _ = try Self.fault(fault, index: 0) } catch { throw ValidationError("\(error)") }
        }
        for bundle in apnsBundles where bundle.isEmpty || bundle.hasPrefix(":") {
            throw ValidationError("--apns-bundle expects ID[:TEAMID] (got '\(bundle)')")
        }
    }

    /// `REASON[:DEVICE_TOKEN]` as a fault rule.
    static func fault(_ flag: String, index: Int) throws -> FaultRule {
        let parts = flag.split(separator: ":", maxSplits: 1).map(String.init)
        guard let name = parts.first, let reason = APNSRejectionReason.named(name) else {
            throw PushMockError(code: .invalidConfiguration, message: "--apns-fault \(flag): unknown reason; known: \(APNSRejectionReason.all.map(\.reason).joined(separator: ", "))")
        }
        let token = parts.count > 1 ? parts[1] : nil
        return FaultRule(id: "cli-\(index + 1)-\(reason.reason)", match: .init(service: "apns", token: token), action: .reject(status: reason.status, reason: reason.reason))
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "pushmock")
        var configuration = PushMockConfiguration()
        configuration.host = host
        configuration.pushPort = pushPort
        configuration.cleartextPort = cleartextPort
        configuration.tls = .files(certificateChain: cert, privateKey: key)
        configuration.maxRequestBodySize = maxBodySize
        configuration.idleTimeoutSeconds = idleTimeout > 0 ? idleTimeout : nil
        configuration.threads = threads
        configuration.mode = PushMockConfiguration.Mode(rawValue: mode) ?? .push
        configuration.inspectionHost = inspectionHost
        configuration.inspectionPort = noInspection ? nil : inspectionPort
        configuration.retention = retention
        configuration.idSeed = idSeed
        var apns = configuration.apns
        apns.keys += try apnsKeys.map { try APNSConfiguration.Key(flag: $0) }
        for flag in apnsBundles {
            let parts = flag.split(separator: ":", maxSplits: 1).map(String.init)
            apns.bundles.append(.init(bundleID: parts[0], teamID: parts.count > 1 ? parts[1] : DevCertificates.sampleAPNSTeamID))
        }
        apns.defaultEnvironment = APNSEnvironment(rawValue: apnsEnvironment) ?? .sandbox
        if !apnsTrustRoots.isEmpty {
            apns.certificateTrustRoots = apnsTrustRoots.map { .file($0) }
        }
        apns.closedDeviceRegistry = closedDeviceRegistry
        apns.streamsBeforeAuthentication = max(1, streamsBeforeAuth)
        apns.options.rejectBackgroundPriority10 = !allowBackgroundPriority10
        apns.options.rejectTopicPushTypeMismatch = !allowTopicMismatch
        apns.options.rejectNonJSONBody = !allowNonJSONBody
        configuration.apns = apns
        configuration.faults = try apnsFaults.enumerated().map { try Self.fault($1, index: $0) }

        let server: PushMockServer
        do {
            server = try await PushMockServer.start(configuration: configuration, logger: logger)
        } catch {
            throw ValidationError("\(error)")
        }
        var endpoints = "push https://\(host):\(server.pushPort) (TLS, h2 + http/1.1)"
        if let port = server.cleartextPort {
            endpoints += ", cleartext http://\(host):\(port) (h2c + http/1.1)"
        }
        if let port = server.inspectionPort {
            endpoints += ", inspection http://\(inspectionHost):\(port)/api/v1/deliveries"
        }
        logger.info("PushMock listening: \(endpoints)")
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: server)],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        try await group.run()
        logger.info("PushMock stopped")
    }
}
