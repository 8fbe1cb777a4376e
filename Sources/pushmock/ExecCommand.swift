import ArgumentParser
import Dispatch
import Foundation
import Logging
import PushMockServer

/// `pushmock exec [serve options] -- COMMAND…`: runs a command beside a PushMock started for it on
/// free ports, with the variables that point clients at it, then stops the server and exits with
/// the command's status, as `firebase emulators:exec` does.
///
/// ```sh
/// pushmock exec -- pytest -q
/// pushmock exec --store sqlite:run.db -- npm test
/// ```
struct ExecCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "exec",
        abstract: "Run a command beside a PushMock started for it on free ports; exit with the command's status.",
        discussion: """
            The command gets PUSHMOCK_URL (the inspection API), PUSHMOCK_TOKEN (when the API wants one), PUSHMOCK_PUSH_URL, \
            PUSHMOCK_PUSH_PORT and PUSHMOCK_INSPECTION_PORT, and trusts the development CA through SSL_CERT_FILE, \
            REQUESTS_CA_BUNDLE and CURL_CA_BUNDLE (the system's roots plus the CA) and NODE_EXTRA_CA_CERTS. The server takes \
            every serve option (and PUSHMOCK_* variable); its ports are free ones unless --port or --inspection-port says \
            otherwise. The server stops when the command ends; SIGINT and SIGTERM are passed to the command.
            """
    )

    @OptionGroup var serve: ServeArguments

    @Argument(parsing: .postTerminator, help: ArgumentHelp("The command and its arguments, after --.", valueName: "command"))
    var command: [String] = []

    func validate() throws {
        guard !command.isEmpty else { throw ValidationError("give the command to run after --: pushmock exec -- pytest -q") }
    }

    func run() async throws {
        let logger = serve.bootstrapLogging()
        let environment = ProcessInfo.processInfo.environment
        let (server, material) = try await serve.start(logger: logger) { configuration in
            if serve.listener.pushPort == nil, environment["PUSHMOCK_PORT"] == nil { configuration.pushPort = 0 }
            if serve.inspection.inspectionPort == nil, environment["PUSHMOCK_INSPECTION_PORT"] == nil, configuration.inspectionPort != nil {
                configuration.inspectionPort = 0
            }
        }
        let locatorPath = serve.writeLocator(server, material: material, logger: logger)
        let trust = FileManager.default.temporaryDirectory.appendingPathComponent("pushmock-exec-\(getpid())-\(UInt32.random(in: .min ... .max))")
        defer {
            if let locatorPath { unlink(locatorPath) }
            try? FileManager.default.removeItem(at: trust)
        }
        var status: Int32 = 1
        do {
            var child = environment
            for (name, value) in try Self.variables(server: server, material: material, trustDirectory: trust) { child[name] = value }
            status = try await Self.runChild(command, environment: child)
        } catch {
            logger.error("pushmock exec: \(error)")
        }
        await server.shutdown()
        logger.info("PushMock stopped; \(command[0]) exited with \(status)")
        throw ExitCode(status)
    }

    /// What the command is given.
    static func variables(server: PushMockServer, material: DevMaterialDirectory, trustDirectory: URL) throws -> [(String, String)] {
        let caPath = material.file(DevCertificates.FileName.caCertificate)
        guard let ca = try? String(contentsOfFile: caPath, encoding: .utf8) else {
            throw ValidationError("cannot read the development CA at \(caPath)")
        }
        let files = try TrustMaterial.write(caPEM: ca, to: trustDirectory)
        var variables = [
            ("PUSHMOCK_PUSH_URL", "https://localhost:\(server.pushPort)"),
            ("PUSHMOCK_PUSH_PORT", String(server.pushPort)),
            ("SSL_CERT_FILE", files.bundle.path),
            ("REQUESTS_CA_BUNDLE", files.bundle.path),
            ("CURL_CA_BUNDLE", files.bundle.path),
            ("NODE_EXTRA_CA_CERTS", files.ca.path),
        ]
        if let port = server.inspectionPort {
            variables += [("PUSHMOCK_URL", "http://127.0.0.1:\(port)"), ("PUSHMOCK_INSPECTION_PORT", String(port))]
        }
        if let token = server.configuration.inspectionToken { variables.append(("PUSHMOCK_TOKEN", token)) }
        return variables
    }

    /// Runs `command` (looked up on PATH) with the terminal's standard streams, passes SIGINT and
    /// SIGTERM on to it, and returns its exit status (128 + the signal when a signal ended it).
    static func runChild(_ command: [String], environment: [String: String]) async throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["--"] + command
        process.environment = environment
        let signals = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { if process.isRunning { kill(process.processIdentifier, number) } }
            source.resume()
            return source
        }
        defer { for source in signals { source.cancel() } }
        return try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { finished in
                let status = finished.terminationStatus
                continuation.resume(returning: finished.terminationReason == .uncaughtSignal ? 128 + status : status)
            }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: ValidationError("cannot run \(command[0]): \(error)"))
            }
        }
    }
}
