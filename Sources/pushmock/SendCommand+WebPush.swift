import ArgumentParser
import Crypto
import Foundation
import PushMockCore
import PushMockInspection

extension SendCommand {
    /// `pushmock send webpush`: sends a Web Push message as an application server does: the payload
    /// encrypted to the subscription's keys (RFC 8291, aes128gcm) and VAPID signed (RFC 8292) for the
    /// endpoint's origin. Without `--subscription` or `--subscription-file` it mints one first.
    struct WebPush: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "webpush", abstract: "Send a Web Push message (encrypted with aes128gcm, VAPID signed) to a subscription.")

        @OptionGroup var target: Target

        @Option(help: "A subscription minted on the server, by id (GET /api/v1/web-push/subscriptions lists them).")
        var subscription: String?

        @Option(help: "A subscription as PushSubscription.toJSON() gives it: {\"endpoint\": …, \"keys\": {\"p256dh\": …, \"auth\": …}}.")
        var subscriptionFile: String?

        @Option(help: "Without --subscription or --subscription-file: mint one for this service (apple, mozilla or google).")
        var service = "mozilla"

        @Option(help: "The notification title (sent as {\"title\", \"body\"} JSON).")
        var title: String?

        @Option(help: "The notification body.")
        var body: String?

        @Option(help: "Send a Declarative Web Push message (web_push 8030) that opens this URL when tapped.")
        var navigate: String?

        @Option(help: "A file whose bytes are the payload, as they are (instead of --title and --body).")
        var payload: String?

        @Option(help: "The VAPID private key (PEM, P-256): the application server key the subscription was made with (default: a new key pair).")
        var vapidKey: String?

        @Option(help: "The VAPID sub claim: a mailto: or https: URL.")
        var subject = "mailto:pushmock@example.com"

        @Option(help: "TTL, in seconds.")
        var ttl = 60

        @Option(help: "Urgency: very-low, low, normal or high.")
        var urgency: String?

        @Option(help: "Topic: a message with the same topic replaces an undelivered one.")
        var topic: String?

        func validate() throws {
            if subscription != nil, subscriptionFile != nil { throw ValidationError("give --subscription or --subscription-file, not both") }
            if payload != nil, title != nil || body != nil || navigate != nil {
                throw ValidationError("give --payload, or --title, --body and --navigate, not both")
            }
            if WebPushSubscription.Service(rawValue: service) == nil {
                throw ValidationError("--service is apple, mozilla or google (got \(service))")
            }
        }

        func run() async throws {
            let key = try signingKey()
            let message = try plaintext()
            try await SendClient.run(target) { client in
                let recipient = try await self.recipient(client, key: key)
                let bytes = try WebPushEncryption.seal(
                    message, p256dh: Base64URL.decode(Substring(recipient.p256dh)) ?? [],
                    authSecret: Base64URL.decode(Substring(recipient.auth)) ?? [])
                let now = Int64(Date().timeIntervalSince1970)
                var headers = [
                    ("ttl", String(ttl)), ("content-encoding", "aes128gcm"),
                    (
                        "authorization",
                        WebPushEncryption.vapid(audience: try Self.origin(of: recipient.url), subject: subject, expiry: now + 43_200, key: key)
                    ),
                ]
                if let urgency { headers.append(("urgency", urgency)) }
                if let topic { headers.append(("topic", topic)) }
                let answer = try await client.post(recipient.url, headers: headers, body: bytes)
                print("\(answer.status)\(answer.headers.first { $0.0 == "location" }.map { " location: \($0.1)" } ?? "")")
                if !answer.body.isEmpty { print(answer.body) }
                await client.printRecorded(filter: "service=webpush&token=\(recipient.id)")
                try client.finish(status: answer.status)
            }
        }

        /// Where the message goes and the keys it is sealed to.
        struct Recipient {
            var url: String
            var id: String
            var p256dh: String
            var auth: String
        }

        /// The subscription given, read from the server or a file, or one minted now (with `key`'s
        /// public half as its application server key). A minted one is reached at the push port's
        /// URL, keeping the endpoint's path.
        func recipient(_ client: SendClient, key: P256.Signing.PrivateKey) async throws -> Recipient {
            if let subscriptionFile {
                guard let data = FileManager.default.contents(atPath: subscriptionFile),
                    let resource = try? JSONDecoder().decode(SubscriptionFile.self, from: data)
                else {
                    throw ValidationError("\(subscriptionFile) is not a subscription: {\"endpoint\": …, \"keys\": {\"p256dh\": …, \"auth\": …}}")
                }
                let id = resource.endpoint.split(separator: "/").last.map(String.init) ?? ""
                return Recipient(url: resource.endpoint, id: id, p256dh: resource.keys.p256dh, auth: resource.keys.auth)
            }
            guard let endpoint = client.endpoint else {
                throw ValidationError("--inspection-url none: give --subscription-file (the inspection API mints and reads subscriptions)")
            }
            let resource: WebPushSubscriptionResource
            if let subscription {
                resource = try await endpoint.call(
                    client.inspection, "GET", "/api/v1/web-push/subscriptions/\(subscription)", command: "send webpush")
            } else {
                let request = #"{"service":"\#(service)","applicationServerKey":"\#(Base64URL.encode(Array(key.publicKey.x963Representation)))"}"#
                resource = try await endpoint.call(
                    client.inspection, "POST", "/api/v1/web-push/subscriptions", body: Array(request.utf8), command: "send webpush")
                print("minted a \(service) subscription: \(resource.endpoint)")
            }
            if let expected = resource.applicationServerKey, expected != Base64URL.encode(Array(key.publicKey.x963Representation)) {
                FileHandle.standardError.write(
                    Data("note: the subscription was made with applicationServerKey \(expected); pass --vapid-key with its private half\n".utf8))
            }
            let path = URLComponents(string: resource.endpoint)?.percentEncodedPath ?? ""
            return Recipient(url: client.pushURL + path, id: resource.id, p256dh: resource.keys.p256dh, auth: resource.keys.auth)
        }

        struct SubscriptionFile: Decodable {
            struct Keys: Decodable {
                var p256dh: String
                var auth: String
            }
            var endpoint: String
            var keys: Keys
        }

        func signingKey() throws -> P256.Signing.PrivateKey {
            guard let vapidKey else { return P256.Signing.PrivateKey() }
            guard let pem = try? String(contentsOfFile: vapidKey, encoding: .utf8) else {
                throw ValidationError("cannot read --vapid-key \(vapidKey)")
            }
            do {
                return try P256.Signing.PrivateKey(pemRepresentation: pem)
            } catch {
                throw ValidationError("--vapid-key \(vapidKey) is not a P-256 private key in PEM (openssl ecparam -name prime256v1 -genkey -noout)")
            }
        }

        func plaintext() throws -> [UInt8] {
            if let payload {
                guard let data = FileManager.default.contents(atPath: payload) else { throw ValidationError("cannot read --payload \(payload)") }
                return Array(data)
            }
            var notification: [(key: String, value: JSONValue)] = [("title", .string(title ?? "PushMock")), ("body", .string(body ?? "Hello"))]
            guard let navigate else { return try SendPayload.encode(.object(notification)) }
            notification.append(("navigate", .string(navigate)))
            return try SendPayload.encode(.object([("web_push", .number("8030")), ("notification", .object(notification))]))
        }

        /// `scheme://host[:port]` of `url`: VAPID's `aud`.
        static func origin(of url: String) throws -> String {
            guard let components = URLComponents(string: url), let scheme = components.scheme, let host = components.host else {
                throw ValidationError("the endpoint \(url) is not an absolute URL")
            }
            let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
            return "\(scheme)://\(bracketed)" + (components.port.map { $0 == 443 ? "" : ":\($0)" } ?? "")
        }
    }
}
