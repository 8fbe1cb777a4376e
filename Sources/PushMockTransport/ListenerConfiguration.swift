public import NIOCore
import Synchronization

/// The HTTP/2 SETTINGS a connection starts with. Defaults are what APNs was seen to send.
public struct HTTP2Settings: Sendable, Hashable {
    /// SETTINGS_HEADER_TABLE_SIZE.
    public var headerTableSize: UInt32 = 4096
    /// SETTINGS_MAX_CONCURRENT_STREAMS.
    public var maxConcurrentStreams: UInt32 = 1000
    /// SETTINGS_INITIAL_WINDOW_SIZE.
    public var initialWindowSize: UInt32 = 65535
    /// SETTINGS_MAX_FRAME_SIZE.
    public var maxFrameSize: UInt32 = 16384
    /// SETTINGS_MAX_HEADER_LIST_SIZE; a larger header list gets 431 on that stream only (and the
    /// same limit applies to HTTP/1.1 request heads, which get 431 and a close).
    public var maxHeaderListSize: UInt32 = 8000

    /// APNs-like defaults.
    public init() {}
}

/// Everything the listener needs to know, none of it about push.
public struct ListenerConfiguration: Sendable {
    /// Address to bind, such as `127.0.0.1`, `::1` or `0.0.0.0`.
    public var host: String
    /// Port to bind; 0 picks a free one (read it back from ``HTTPListener/localAddress``).
    public var port: Int
    /// TLS (with ALPN `h2`, `http/1.1` set by the listener). `nil` serves cleartext h2c with prior
    /// knowledge and HTTP/1.1 on the same port.
    public var tls: ListenerTLS?
    /// The SETTINGS every connection starts with (a responder may change them per connection).
    public var http2: HTTP2Settings
    /// Bodies are read up to this many bytes; past it the responder sees
    /// ``RequestLimit/bodySize(limit:)`` and the rest is discarded.
    public var maxRequestBodySize: Int
    /// Close connections idle this long with GOAWAY; `nil` never does.
    public var idleTimeout: TimeAmount?
    /// The debug data of the idle-timeout GOAWAY.
    public var idleGoAwayDebugData: [UInt8]
    /// How long graceful shutdown waits for streams in flight before closing connections.
    public var shutdownGracePeriod: TimeAmount
    /// Ask TLS clients for a certificate (optional for them) and accept any they send: the
    /// responder judges it from ``ConnectionInfo/clientCertificateChain`` (so an untrusted
    /// certificate gets an HTTP answer, not a failed handshake).
    public var requestClientCertificates: Bool
    /// At most this many connections are open at once; one accepted over the cap is closed at
    /// once and reported as ``TransportEvent/connectionOverCap``. `nil`: no cap.
    public var maxConnections: Int?
    /// At most this many of them from one client address (IP, any port); one more is closed at
    /// once and reported as ``TransportEvent/connectionOverClientCap``. `nil`: no cap.
    public var maxConnectionsPerClient: Int?
    /// A cap this listener shares with others (the push port and its CONNECT proxy, whose
    /// tunnels hold a descriptor each): a connection needs a place under it as well as under
    /// ``maxConnections``.
    public var sharedBudget: ConnectionBudget?
    /// A connection that has not finished its TLS handshake and shown its protocol (ALPN, the
    /// HTTP/2 preface or an HTTP/1.1 request line) within this time is closed
    /// (``TransportEvent/protocolDeadline``). `nil`: no deadline.
    public var protocolDeadline: TimeAmount?
    /// Accept header values with leading or trailing whitespace instead of resetting the stream
    /// (nghttp2's RFC 9113 field check), so that the responder can answer them: APNs answers
    /// `authorization: bearer ` at the application level.
    public var lenientFieldWhitespace: Bool
    /// Make this a CONNECT proxy port: each connection first sends `CONNECT host:port`; an allowed
    /// target gets `200 Connection Established` and the tunnel is served like the TLS port itself
    /// (the TLS configuration is required); anything else gets 403 and is closed. `nil`: not a proxy.
    public var connectProxy: ConnectProxyPolicy?

    /// Creates a configuration.
    public init(
        host: String = "127.0.0.1",
        port: Int = 2197,
        tls: ListenerTLS? = nil,
        http2: HTTP2Settings = HTTP2Settings(),
        maxRequestBodySize: Int = 64 * 1024,
        idleTimeout: TimeAmount? = nil,
        idleGoAwayDebugData: [UInt8] = [],
        shutdownGracePeriod: TimeAmount = .seconds(5),
        requestClientCertificates: Bool = false,
        maxConnections: Int? = nil,
        protocolDeadline: TimeAmount? = .seconds(10),
        lenientFieldWhitespace: Bool = false,
        connectProxy: ConnectProxyPolicy? = nil
    ) {
        self.connectProxy = connectProxy
        self.maxConnections = maxConnections
        self.protocolDeadline = protocolDeadline
        self.lenientFieldWhitespace = lenientFieldWhitespace
        self.host = host
        self.port = port
        self.tls = tls
        self.http2 = http2
        self.maxRequestBodySize = maxRequestBodySize
        self.idleTimeout = idleTimeout
        self.idleGoAwayDebugData = idleGoAwayDebugData
        self.shutdownGracePeriod = shutdownGracePeriod
        self.requestClientCertificates = requestClientCertificates
    }
}

/// Connections that several listeners share: at most ``limit`` open among them all.
public final class ConnectionBudget: Sendable {
    public let limit: Int
    private let open = Atomic<Int>(0)

    public init(limit: Int) {
        self.limit = limit
    }

    /// Connections open now, among all listeners sharing the budget.
    public var count: Int { open.load(ordering: .relaxed) }

    /// Takes a place; false when all are taken.
    func take() -> Bool {
        while true {
            let current = open.load(ordering: .relaxed)
            guard current < limit else { return false }
            if open.compareExchange(expected: current, desired: current + 1, ordering: .relaxed).exchanged { return true }
        }
    }

    /// Gives a place back.
    func giveBack() {
        open.subtract(1, ordering: .relaxed)
    }
}
