/// What the transport knows about one client connection. Immutable and shared by every request on it.
public final class ConnectionInfo: Sendable, CustomStringConvertible {
    /// The HTTP version a connection speaks.
    public enum HTTPVersion: String, Sendable, Hashable {
        case http2 = "HTTP/2"
        case http1_1 = "HTTP/1.1"
    }

    /// A process-unique connection id, counting up from 1.
    public let id: UInt64
    /// The HTTP version in use.
    public let httpVersion: HTTPVersion
    /// Whether the connection is TLS.
    public let isTLS: Bool
    /// The ALPN protocol the client negotiated (`h2`, `http/1.1`), or `nil` when it offered none
    /// (the transport then sniffed the HTTP/2 preface).
    public let alpnProtocol: String?
    /// The TLS server name (SNI) the client asked for.
    public let serverName: String?
    /// The peer's address, such as `127.0.0.1:53412` or `[::1]:53412`.
    public let remoteAddress: String?
    /// The local port the connection arrived on.
    public let localPort: Int?
    /// The client certificate chain in DER, leaf first; empty without client authentication.
    public let clientCertificateChain: [[UInt8]]

    /// Creates connection info (the transport does this; tests may too).
    public init(
        id: UInt64,
        httpVersion: HTTPVersion,
        isTLS: Bool,
        alpnProtocol: String? = nil,
        serverName: String? = nil,
        remoteAddress: String? = nil,
        localPort: Int? = nil,
        clientCertificateChain: [[UInt8]] = []
    ) {
        self.id = id
        self.httpVersion = httpVersion
        self.isTLS = isTLS
        self.alpnProtocol = alpnProtocol
        self.serverName = serverName
        self.remoteAddress = remoteAddress
        self.localPort = localPort
        self.clientCertificateChain = clientCertificateChain
    }

    public var description: String {
        "connection #\(id) \(httpVersion.rawValue)\(isTLS ? " TLS" : " cleartext")"
            + (alpnProtocol.map { " alpn=\($0)" } ?? (httpVersion == .http2 && isTLS ? " (no ALPN)" : ""))
            + (serverName.map { " sni=\($0)" } ?? "")
            + (remoteAddress.map { " from \($0)" } ?? "")
    }
}
