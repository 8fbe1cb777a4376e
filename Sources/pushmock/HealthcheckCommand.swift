import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// `pushmock healthcheck`: exit 0 when `/readyz` answers 200, for container images without curl
/// (`HEALTHCHECK CMD pushmock healthcheck`).
struct HealthcheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "healthcheck",
        abstract: "Exit 0 when the server's /readyz answers ready (for HEALTHCHECK in images without curl)."
    )

    @Option(help: "The inspection API's base URL (default http://127.0.0.1:$PUSHMOCK_INSPECTION_PORT, or port 2198).")
    var url: String?

    @Option(help: "Seconds to wait for an answer.")
    var timeout: Int64 = 3

    @Option(help: "The inspection token, if the server wants one (default $PUSHMOCK_INSPECTION_TOKEN).")
    var token: String?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let base = url ?? "http://127.0.0.1:\(environment["PUSHMOCK_INSPECTION_PORT"] ?? "2198")"
        var request = HTTPClientRequest(url: base + "/readyz")
        if let token = token ?? environment["PUSHMOCK_INSPECTION_TOKEN"], !token.isEmpty {
            request.headers.add(name: "authorization", value: "Bearer \(token)")
        }
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let status: UInt
        do {
            status = try await client.execute(request, timeout: .seconds(timeout)).status.code
            try await client.shutdown()
        } catch {
            try? await client.shutdown()
            print("not ready: \(base)/readyz: \(error)")
            throw ExitCode(1)
        }
        guard status == 200 else {
            print("not ready: \(base)/readyz answered \(status)")
            throw ExitCode(1)
        }
        print("ready: \(base)/readyz")
    }
}
