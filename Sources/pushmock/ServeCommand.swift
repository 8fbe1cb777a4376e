import ArgumentParser
import Foundation
import Logging
import PushMockCore
import PushMockServer
import PushMockStores
import PushMockSwiftSource
import ServiceLifecycle
import UnixSignals

/// `pushmock serve`: runs the server until SIGINT or SIGTERM. Settings come from the defaults, then
/// `--config FILE`, then the flags given (flags win).
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run PushMock (defaults: TLS push port 127.0.0.1:2197, inspection API on 127.0.0.1:2198).",
        discussion: """
            Every option can also come from the environment: PUSHMOCK_<OPTION>, the long name in capitals with _ for - \
            (--port: PUSHMOCK_PORT, --inspection-host: PUSHMOCK_INSPECTION_HOST). A flag is on for 1, true or yes; a repeatable \
            option takes values separated by ;. Flags on the command line win. Development credentials come from Certs/ in the \
            working directory, else from --data-dir (PUSHMOCK_DATA_DIR), else ~/.local/share/pushmock, created there once.
            """
    )

    @OptionGroup var options: ServeArguments

    func run() async throws {
        MallocTuning.applyByRestarting()
        let logger = options.bootstrapLogging()
        let (server, material) = try await options.start(logger: logger)
        let locatorPath = options.writeLocator(server, material: material, logger: logger)
        defer { if let locatorPath { unlink(locatorPath) } }
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

/// Everything `serve` takes, which `exec` takes too: the options grouped as the help shows them
/// (`ListenerOptions`, `InspectionOptions`, `RecordingOptions`, `APNSOptions`, `FCMOptions`,
/// `LiveActivityOptions`, `RelayOptions`, each in its own file). Each group checks its own values
/// and puts them onto the configuration; ``ServeCommand`` applies the file first, then each group.
struct ServeArguments: ParsableArguments {
    @Option(help: "JSON configuration file (see Examples/pushmock.json); flags override it.")
    var config: String?

    @Option(
        help:
            "Where development credentials are created once and reused (DIR/certs) when there is no Certs/ in the working directory (default $XDG_DATA_HOME/pushmock or ~/.local/share/pushmock)."
    )
    var dataDir: String?

    @Option(
        name: .customLong("cert-host"),
        help: ArgumentHelp(
            "A name the server certificate covers besides localhost, 127.0.0.1, ::1 and the real push hosts: a host name (a compose service's, say) or an IP address; @hostname is this machine's name. The certificate is issued again from the same CA when it lacks one. The inspection port answers these names too. Repeatable; also PUSHMOCK_CERT_HOSTS (separated by , or ;).",
            valueName: "name"))
    var certHosts: [String] = []

    @Option(help: "Write the ports actually bound to this file as JSON ({\"push\":…,\"inspection\":…}), for scripts that pass --port 0.")
    var portsFile: String?

    @OptionGroup(title: "Push port")
    var listener: ListenerOptions

    @OptionGroup(title: "Inspection API and web page")
    var inspection: InspectionOptions

    @OptionGroup(title: "Recording")
    var recording: RecordingOptions

    @OptionGroup(title: "APNs")
    var apns: APNSOptions

    @OptionGroup(title: "FCM, OAuth and Instance ID")
    var fcm: FCMOptions

    @OptionGroup(title: "Live Activities")
    var liveActivity: LiveActivityOptions

    @OptionGroup(title: "Relay to the real services (off unless an upstream is given; relayed pushes reach real devices)")
    var relay: RelayOptions

    @Option(help: "Log level.")
    var logLevel: Logger.Level = .info

    func validate() throws {
        for (name, port) in listener.ports + [("--inspection-port", inspection.inspectionPort)] {
            if let port, !(0...65535).contains(port) {
                throw ValidationError("\(name) must be between 0 and 65535 (got \(port))")
            }
        }
        do { _ = try certificateHosts(environment: ProcessInfo.processInfo.environment) } catch { throw ValidationError("\(error)") }
        try listener.check()
        try inspection.check()
        try recording.check()
        try apns.check()
        try fcm.check()
        try liveActivity.check()
        try relay.check()
    }

    /// `{"push":2197,"inspection":2198,"cleartext":null,…}`, written atomically (a reader never sees half).
    static func writePorts(_ server: PushMockServer, to path: String) throws {
        let ports: [(String, Int?)] = [
            ("push", server.pushPort), ("inspection", server.inspectionPort), ("cleartext", server.cleartextPort),
            ("proxy", server.proxyPort), ("metadata", server.metadataPort),
        ]
        let json = "{" + ports.map { "\"\($0.0)\":\($0.1.map(String.init) ?? "null")" }.joined(separator: ",") + "}\n"
        try Data(json.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    /// `--cert-host` and `PUSHMOCK_CERT_HOSTS`, with `@hostname` as this machine's name.
    func certificateHosts(environment: [String: String]) throws -> [CertificateHost] {
        var names = certHosts
        if let list = environment["PUSHMOCK_CERT_HOSTS"] {
            names += list.split(whereSeparator: { $0 == "," || $0 == ";" || $0 == " " }).map(String.init)
        }
        var hosts: [CertificateHost] = []
        for name in names {
            let host = try CertificateHost(name == "@hostname" ? Self.machineName() : name)
            if !hosts.contains(host) { hosts.append(host) }
        }
        return hosts
    }

    /// gethostname(2): the kernel's name for this machine (a container's is its own), with no DNS.
    static func machineName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Defaults, then the file, then the flags that were given.
    func makeConfiguration(material: DevMaterialDirectory? = nil) throws -> PushMockConfiguration {
        var configuration = PushMockConfiguration()
        configuration.serverVersion = PushMockVersion.current
        material?.apply(to: &configuration)
        if let config {
            try configuration.load(file: config)
        }
        listener.apply(to: &configuration)
        inspection.apply(to: &configuration, environment: ProcessInfo.processInfo.environment)
        try recording.apply(to: &configuration)
        try apns.apply(to: &configuration)
        fcm.apply(to: &configuration)
        liveActivity.apply(to: &configuration)
        relay.apply(to: &configuration)
        configuration.swiftSourceReader = SwiftActivityTypes.reader
        configuration.storeOpeners = StoreOpener.all
        try ActivityTypesCommand.declare(configuration.activityTypeSources, into: &configuration)
        return configuration
    }

    /// Logs to standard error at `--log-level`.
    func bootstrapLogging() -> Logger {
        let level = logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        return Logger(label: "pushmock")
    }

    /// Starts the server (`configure` may change the configuration last) and logs where it listens.
    func start(logger: Logger, configure: (inout PushMockConfiguration) -> Void = { _ in }) async throws -> (PushMockServer, DevMaterialDirectory) {
        let material = DevMaterialDirectory.resolve(dataDirectory: dataDir)
        let server: PushMockServer
        do {
            let created = try material.ensure()
            let hosts = try certificateHosts(environment: ProcessInfo.processInfo.environment)
            let added = try material.cover(hosts)
            if !added.isEmpty {
                logger.notice(
                    "the server certificate in \(material.path) now also names \(added.joined(separator: ", ")) (issued again by the same CA)")
            }
            for notice in try material.secure() { logger.notice("\(notice)") }
            logger.info(
                "development credentials (not secret): \(material.path)\(created ? ", created now" : "") — CA \(DevCertificates.FileName.caCertificate), APNs key \(DevCertificates.FileName.apnsAuthKey), FCM service account \(DevCertificates.FileName.fcmServiceAccount); also at GET /api/v1/credentials"
            )
            var configuration = try makeConfiguration(material: material)
            configuration.inspectionAllowedHosts += hosts.filter { !$0.name.hasPrefix("*.") }.map(\.name)
            configure(&configuration)
            if let notice = try inspection.applyDefaultToken(to: &configuration, material: material, environment: ProcessInfo.processInfo.environment)
            {
                logger.notice("\(notice)")
            }
            server = try await PushMockServer.start(configuration: configuration, logger: logger)
            try material.pointServiceAccount(atPort: server.pushPort)
        } catch {
            // Not a usage error: the message says what to do, without the usage text after it.
            throw StartFailure(description: "\(error)")
        }
        if let portsFile {
            do {
                try Self.writePorts(server, to: portsFile)
            } catch {
                await server.shutdown()
                throw StartFailure(description: "--ports-file \(portsFile): cannot write: \(error)")
            }
        }
        let configuration = server.configuration
        var endpoints = "push https://\(configuration.host):\(server.pushPort) (TLS, h2 + http/1.1)"
        if let port = server.cleartextPort {
            endpoints += ", cleartext http://\(configuration.host):\(port) (h2c + http/1.1)"
        }
        if configuration.transparent {
            endpoints += " answering as the real hosts (transparent mode)"
        }
        if let port = server.proxyPort {
            endpoints += ", CONNECT proxy http://\(configuration.host):\(port) (HTTPS_PROXY; real push hosts only)"
        }
        if let port = server.metadataPort {
            endpoints += ", metadata server http://\(configuration.inspectionHost):\(port) (GCE_METADATA_HOST)"
        }
        if let port = server.inspectionPort {
            endpoints += ", inspection API http://\(configuration.inspectionHost):\(port)/api/v1/deliveries"
        }
        logger.info("PushMock listening: \(endpoints)")
        if let relay = configuration.relay.summary { logger.warning("\(relay)") }
        if let port = server.inspectionPort {
            let host = configuration.inspectionHost.contains(":") ? "[\(configuration.inspectionHost)]" : configuration.inspectionHost
            logger.info(
                "web page: http://\(host == "0.0.0.0" || host == "[::]" ? "127.0.0.1" : host):\(port)/ (live deliveries, Live Activities, devices, faults, rejections catalogue)"
            )
        }
        if configuration.mode == .push {
            // The banner: what to paste to see it work (sample credentials from Certs/, not secret).
            let wildcard = ["0.0.0.0", "::", "[::]"].contains(configuration.inspectionHost)
            let inspectionHost =
                wildcard
                ? "127.0.0.1" : configuration.inspectionHost.contains(":") ? "[\(configuration.inspectionHost)]" : configuration.inspectionHost
            let inspection = server.inspectionPort.map { " --inspection-url http://\(inspectionHost):\($0)" } ?? " --inspection-url none"
            logger.info(
                """
                try it: pushmock send apns\(inspection) --alert "Hello from PushMock" \
                (sample APNs key \(DevCertificates.sampleAPNSKeyID) of team \(DevCertificates.sampleAPNSTeamID) for com.example.app, \
                FCM service account \(DevCertificates.sampleFCMProjectID); `pushmock send fcm` and `pushmock token apns|fcm` use them)
                """)
        }
        return (server, material)
    }
}

extension ServeArguments {
    /// Writes the locator (``Locator``) that client commands and helpers find this server by;
    /// a failure is logged, not fatal. Returns its path.
    func writeLocator(_ server: PushMockServer, material: DevMaterialDirectory, logger: Logger) -> String? {
        let configuration = server.configuration
        let host = ["0.0.0.0", "::", "[::]"].contains(configuration.inspectionHost) ? "127.0.0.1" : configuration.inspectionHost
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        let locator = Locator(
            pid: getpid(), pushUrl: "https://localhost:\(server.pushPort)",
            inspectionUrl: server.inspectionPort.map { "http://\(bracketed):\($0)" },
            ca: material.file(DevCertificates.FileName.caCertificate), token: configuration.inspectionToken)
        guard FileManager.default.fileExists(atPath: Locator.directory()) else {
            // A FROM-scratch image has no /tmp: nothing else runs there to read a locator.
            logger.debug("no locator file: \(Locator.directory()) does not exist")
            return nil
        }
        do {
            let path = try locator.write(port: server.inspectionPort ?? server.pushPort)
            logger.debug("locator: \(path)")
            return path
        } catch {
            logger.warning("cannot write the locator file in \(Locator.directory()) (pushmock send and the helpers then need PUSHMOCK_URL): \(error)")
            return nil
        }
    }
}

/// Why `serve` could not start (a port in use, a bad file): printed as `Error: …`, exit status 1.
struct StartFailure: Error, CustomStringConvertible {
    var description: String
}
