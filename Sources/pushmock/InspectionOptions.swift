import ArgumentParser
import Foundation
import PushMockCore
import PushMockServer

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
