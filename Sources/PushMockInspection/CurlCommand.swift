import Foundation
import PushMockCore
import Synchronization

/// Where the push port listens, for commands that reproduce a request (set once it is bound).
public final class PushAddress: Sendable {
    /// The address clients connect to.
    public let host: String
    /// The CA certificate file clients trust.
    public let caFile: String
    /// Clients reach the push port by the real services' host names (transparent mode, or the
    /// CONNECT proxy): Web Push endpoints are minted on them.
    public let realHosts: Bool
    private let boundPort = Atomic<Int>(0)

    /// Creates an address; ``port`` is 0 until the listener is bound.
    public init(host: String, caFile: String, realHosts: Bool = false) {
        self.host = host == "0.0.0.0" || host == "::" ? "127.0.0.1" : host
        self.caFile = caFile
        self.realHosts = realHosts
    }

    /// The TLS push port.
    public var port: Int {
        get { boundPort.load(ordering: .relaxed) }
        set { boundPort.store(newValue, ordering: .relaxed) }
    }
}

/// `GET /api/v1/deliveries/{id}/curl`: a shell command that sends a recorded request to PushMock
/// again — the same method, path, headers and body, over the same HTTP version, to the same APNs
/// host name (through `--resolve`, so the environment is the same).
enum CurlCommand {
    static let skippedHeaders: Set<String> = ["host", "content-length", "connection", "transfer-encoding", "te", "upgrade", "accept-encoding"]

    static func command(for delivery: Delivery, address: PushAddress, reveal: Bool = false) -> String {
        var lines: [String] = []
        if delivery.headers.contains(where: { $0.name == "authorization" }) {
            lines.append("# The recorded credential may have expired since; mint a new one with `pushmock token apns` or `pushmock token fcm`.")
            if !reveal {
                lines.append("# Its signature is elided: ask for …/curl?reveal=1 to get the header as received.")
            }
        }
        var parts = ["curl", "-sS", "-i"]
        parts.append(delivery.httpVersion == "HTTP/1.1" ? "--http1.1" : "--http2")
        parts += ["--cacert", quote(address.caFile)]
        let url: String
        if delivery.service == .apns || delivery.service == .broadcast,
            let environment = delivery.environment.flatMap(APNSEnvironment.init(rawValue:))
        {
            let hostName = environment == .production ? "api.push.apple.com" : "api.sandbox.push.apple.com"
            parts += ["--resolve", quote("\(hostName):\(address.port):\(address.host)")]
            url = "https://\(hostName):\(address.port)\(delivery.path)"
        } else {
            let host = address.host.contains(":") ? "[\(address.host)]" : address.host
            url = "https://\(host):\(address.port)\(delivery.path)"
        }
        if delivery.method != "GET" || !delivery.body.isEmpty {
            // A method is a token in HTTP/1.1, but HTTP/2 carries any bytes in :method (`, |, $…):
            // every part of the command is quoted, never pasted as it came.
            parts += ["-X", quote(delivery.method)]
        }
        for field in delivery.headers where !skippedHeaders.contains(field.name) && !field.name.hasPrefix(":") {
            let value = field.name == "authorization" && !reveal ? CredentialView.value(field.value) : field.value
            parts += ["-H", quote("\(field.name): \(value)")]
        }
        if !delivery.body.isEmpty {
            if let text = String(validating: delivery.body, as: UTF8.self) {
                parts += ["--data-binary", quote(text)]
            } else {
                parts += ["--data-binary", "@<(echo \(Data(delivery.body).base64EncodedString()) | base64 -d)"]
            }
        }
        parts.append(quote(url))
        lines.append(parts.joined(separator: " "))
        return lines.joined(separator: "\n") + "\n"
    }

    /// POSIX shell single quoting: nothing inside is expanded, a newline stays a newline.
    static func quote(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
