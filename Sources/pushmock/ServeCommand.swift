import ArgumentParser
import Logging
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
