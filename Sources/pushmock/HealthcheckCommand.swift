import ArgumentParser
import Foundation
import NIOSSL
import PushMockTransport

/// `pushmock healthcheck`: exit 0 when `/readyz` answers 200, for container images without curl
/// (`HEALTHCHECK CMD pushmock healthcheck`).
struct HealthcheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "healthcheck",
        abstract: "Exit 0 when the server's /readyz answers ready (for HEALTHCHECK in images without curl)."
    )

    @Option(
        help:
            "The inspection API's base URL (default http://127.0.0.1:$PUSHMOCK_INSPECTION_PORT where that is set, as in the image; else $PUSHMOCK_URL, else a running server's locator file, else http://127.0.0.1:2198)."
    )
    var inspectionURL: String?

    @Option(name: .customLong("url"), help: .hidden)
    var oldURL: String?

    @Option(help: "Seconds to wait for an answer.")
    var timeout: Int64 = 3

    @Option(help: "The inspection token, if the server wants one (default $PUSHMOCK_TOKEN or $PUSHMOCK_INSPECTION_TOKEN).")
    var inspectionToken: String?

    @Option(name: .customLong("token"), help: .hidden)
    var oldToken: String?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let url = inspectionURL ?? oldURL ?? environment["PUSHMOCK_INSPECTION_PORT"].map { "http://127.0.0.1:\($0)" }
        let endpoint = InspectionEndpoint.resolve(url: url, token: inspectionToken ?? oldToken, environment: environment)
        let base = endpoint.url
        var request = ClientRequest(url: base + "/readyz")
        if let token = endpoint.token { request.headers.append(("authorization", "Bearer \(token)")) }
        let client = HTTPClientPool(tls: .makeClientConfiguration())
        let status: Int
        do {
            status = try await client.execute(request, timeout: .seconds(timeout)).status
            await client.shutdown()
        } catch {
            await client.shutdown()
            print("not ready: \(base)/readyz: \(SendClient.short(error))")
            throw ExitCode(1)
        }
        guard status == 200 else {
            print("not ready: \(base)/readyz answered \(status)")
            throw ExitCode(1)
        }
        print("ready: \(base)/readyz")
    }
}
