import NIOCore
import NIOSSL
import PushMockCore
public import PushMockInspection
import PushMockTransport

/// Sends the catalogue's requests and "Send again" through the server's own push port with a
/// real HTTP/2 client (the transport's `HTTPClientPool`, over TLS with ALPN), so that they take
/// exactly the path a sender's do. The peer is this process on loopback; its certificate is not verified (a server
/// configured with its own certificate chain need not be signed by a CA PushMock knows).
public struct LoopbackSender: PushSender {
    let address: PushAddress
    /// How long one exchange (all its requests) may wait for the push port's answers.
    var deadline: Duration

    public init(address: PushAddress, deadline: Duration = .seconds(4)) {
        self.address = address
        self.deadline = deadline
    }

    public var authority: String { "\(host):\(address.port)" }

    private var host: String { address.host.contains(":") ? "[\(address.host)]" : address.host }

    public func send(_ requests: [OutgoingRequest]) async throws -> [SentResponse] {
        let port = address.port
        guard port > 0 else { throw InspectionError(409, "the push port is not listening yet") }
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .none
        // Connecting (TCP and TLS) is bounded by the exchange's deadline alone: on a machine whose
        // cores are all busy a handshake can take long, and a deadline raised for that
        // (PushMockConfiguration.testing() waits 60 s) must hold for it.
        let client = HTTPClientPool(tls: tls, connectTimeout: deadline, maxBodySize: 1 << 20)
        // One deadline for the whole exchange: a delay fault can hold answers for minutes; the
        // caller (a person, a CLI) gets status 0 instead, and the delivery is recorded all the same.
        let exchange = NIODeadline.now() + TimeAmount(deadline)
        var answers: [SentResponse] = []
        for outgoing in requests {
            // A field HTTP cannot carry is not sent: the answer says why, as a stream the push
            // port reset would.
            if let problem = Self.unsendable(outgoing.headers) {
                answers.append(SentResponse(status: 0, body: Array("not sent: \(problem)".utf8)))
                continue
            }
            let request = ClientRequest(
                method: outgoing.method, url: "https://\(host):\(port)\(outgoing.path)",
                headers: outgoing.headers.map { (name: $0.name, value: $0.value) },
                body: outgoing.method != "GET" || !outgoing.body.isEmpty ? outgoing.body : nil)
            do {
                let response = try await client.execute(request, deadline: exchange)
                answers.append(SentResponse(status: response.status, body: response.body))
            } catch {
                // A stream reset, a GOAWAY or an answer held past the deadline (faults, or a rule
                // that closes the connection) is the push port's answer too: status 0 and what
                // the client saw.
                answers.append(SentResponse(status: 0, body: Array("no HTTP response: \(error)".utf8)))
            }
        }
        await client.shutdown()
        return answers
    }

    /// Why `headers` cannot go on the wire, if they cannot: a name that is not an HTTP token
    /// (RFC 9110 §5.1), or a value holding CR, LF or NUL.
    static func unsendable(_ headers: [HeaderField]) -> String? {
        let symbols = Set("!#$%&'*+-.^_`|~".utf8)
        for field in headers {
            let isToken =
                !field.name.isEmpty
                && field.name.utf8.allSatisfy {
                    $0 < 0x80
                        && (symbols.contains($0) || UInt8(ascii: "0")...UInt8(ascii: "9") ~= $0 || UInt8(ascii: "a")...UInt8(ascii: "z") ~= $0
                            || UInt8(ascii: "A")...UInt8(ascii: "Z") ~= $0)
                }
            guard isToken else { return "the header name \"\(field.name)\" is not an HTTP field name (letters, digits and !#$%&'*+-.^_`|~)" }
            if field.value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) {
                return "the value of \(field.name) holds CR, LF or NUL"
            }
        }
        return nil
    }
}
