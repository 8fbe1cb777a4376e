/// Things that happened below the request level.
public enum TransportEvent: String, Sendable, Hashable, CaseIterable {
    /// The client broke HTTP/2 framing rules; the connection got GOAWAY.
    case http2ProtocolError = "http2_protocol_error"
    /// The client flooded the connection (rapid resets, CONTINUATION or SETTINGS floods).
    case http2Flood = "http2_flood"
    /// A stream was refused or reset by HTTP/2 message checks (bad pseudo-headers, uppercase names…).
    case http2InvalidStream = "http2_invalid_stream"
    /// A stream was refused with REFUSED_STREAM (over the advertised MAX_CONCURRENT_STREAMS, for
    /// example a client that bursts before reading the server's SETTINGS); clients may retry it.
    case http2StreamRefused = "http2_stream_refused"
    /// An HTTP/1.1 request could not be parsed.
    case http1ParseError = "http1_parse_error"
    /// The TLS handshake failed.
    case tlsHandshakeFailed = "tls_handshake_failed"
    /// The client was idle past the idle timeout and got GOAWAY.
    case idleTimeout = "idle_timeout"
    /// A connection accepted over the connection cap was closed at once.
    case connectionOverCap = "connection_over_cap"
    /// A connection accepted from an address that holds the per-client cap already was closed at once.
    case connectionOverClientCap = "connection_over_client_cap"
    /// A connection did not finish its handshake or show its protocol in time and was closed.
    case protocolDeadline = "protocol_deadline"
    /// A request's header list was over the limit: 431 on HTTP/2 (stream), 431 and close on HTTP/1.1.
    case headerListTooLarge = "header_list_too_large"
    /// A request body was over the limit: 413, then the stream reset (HTTP/2) or the connection
    /// closed (HTTP/1.1), so the rest is never read.
    case bodyTooLarge = "body_too_large"
    /// A proxy listener refused a request: a CONNECT to a host it does not stand in for (403),
    /// another method (405) or garbage (400).
    case proxyRefused = "proxy_refused"
}
