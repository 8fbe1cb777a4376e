import PushMockBytes
import PushMockCore
import PushMockStore
import PushMockTransport

/// One route of the push port: the service it answers for, its paths, the real host that serves
/// them, and how its requests are ordered. ``PushRoute/table`` is every route, in the order they
/// are tried; ``PushResponder`` routes by it and serves every route the same way (a fleet's turn,
/// a fleet's fault claims, then ``PushEndpoint/serve(_:target:context:claims:)``).
struct PushRoute: Sendable {
    /// What a route found in a request's path: which endpoint answers it, and with what.
    enum Target {
        case apns
        case broadcast
        case fcm(project: String)
        case iid(IIDEndpoint.Operation)
        case oauth
        case webPush(WebPushEndpoint.Target)
    }

    /// How a route recognises its requests.
    enum Matcher {
        /// `/3/…`.
        case apnsDevice
        /// `/1/apps/…` and `/4/broadcasts/…`.
        case broadcast
        /// `/v1/projects/{project}/messages:send`.
        case fcmSend
        /// Instance ID's and FCM's topic management paths.
        case topicManagement
        /// The token path served (`serve --token-path`), and `/token` on oauth2.googleapis.com.
        case oauthToken
        /// A minted Web Push subscription's endpoint: `/wpush/v1|v2/{id}`, `/fcm/send/{id}`, `/{id}`.
        case webPush
    }

    let service: Delivery.Service
    /// The paths, as the docs write them (`{token-path}` is `serve --token-path`).
    let paths: [String]
    /// Live Activity pushes wait their turn across a fleet (``ActivityTurns``).
    let takesTurns: Bool
    /// An APNs path: a token connection keeps one stream until its first valid provider token.
    let isAPNs: Bool
    let matcher: Matcher

    static let table: [PushRoute] = [
        PushRoute(service: .apns, paths: ["/3/device/{token}"], takesTurns: true, isAPNs: true, matcher: .apnsDevice),
        PushRoute(
            service: .broadcast, paths: ["/1/apps/{bundleId}/channels", "/1/apps/{bundleId}/all-channels", "/4/broadcasts/apps/{bundleId}"],
            takesTurns: true, isAPNs: true, matcher: .broadcast),
        PushRoute(service: .fcm, paths: ["/v1/projects/{project}/messages:send"], takesTurns: true, isAPNs: false, matcher: .fcmSend),
        PushRoute(
            service: .iid,
            paths: [
                "/iid/v1:batchAdd", "/iid/v1:batchRemove", "/iid/v1/{token}/rel/topics/{topic}", "/iid/info/{token}",
                "/v1/projects/{project}/registrations/{token}/topicSubscriptions",
                "/v1/projects/{project}/registrations/{token}/topicSubscriptions/{topic}",
            ],
            takesTurns: false, isAPNs: false, matcher: .topicManagement),
        PushRoute(service: .oauth, paths: ["{token-path}", "/token"], takesTurns: false, isAPNs: false, matcher: .oauthToken),
        // Last: Apple's `/{id}` is any long base64url path no other route took.
        PushRoute(
            service: .webpush, paths: ["/wpush/v2/{id}", "/wpush/v1/{id}", "/fcm/send/{id}", "/{id}"], takesTurns: false, isAPNs: false,
            matcher: .webPush),
    ]

    /// A request's route: what it names, the real host that serves it, and the route's facts.
    struct Match {
        let target: Target
        let home: RealHost
        let service: Delivery.Service
        let takesTurns: Bool
        let isAPNs: Bool
    }

    /// The target a request names on this route and the real host that serves it; nil when the
    /// request is not this route's. `tokenPath` is the OAuth token path served; `head` is the
    /// path's first four bytes (`String.utf8HeadWord`), which the routes with a literal prefix
    /// compare first: an FCM message went through APNs' and the broadcast's prefix checks.
    func match(_ request: HTTPServerRequest, head: UInt32, host: RealHost?, tokenPath: String) -> (target: Target, home: RealHost)? {
        switch matcher {
        case .apnsDevice:
            return head & 0x00FF_FFFF == Self.word("/", "3", "/", "\0") ? (.apns, .apns) : nil
        case .broadcast:
            return (head == Self.word("/", "1", "/", "a") && request.path.hasBytePrefix("/1/apps/"))
                || (head == Self.word("/", "4", "/", "b") && request.path.hasBytePrefix("/4/broadcasts/")) ? (.broadcast, .broadcast) : nil
        case .fcmSend:
            guard head == Self.word("/", "v", "1", "/") else { return nil }
            return FCMEndpoint.project(in: request.path).map { (.fcm(project: $0), .fcm) }
        case .topicManagement:
            guard let operation = IIDEndpoint.operation(path: request.path, method: request.method) else { return nil }
            switch operation {
            case .subscribe, .unsubscribe: return (.iid(operation), .fcm)
            case .batch, .relate, .info: return (.iid(operation), .iid)
            }
        case .oauthToken:
            // On oauth2.googleapis.com both `/token` and the configured path; elsewhere the configured path.
            let path = request.path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
            return path == tokenPath || (host == .oauth2 && path == "/token") ? (.oauth, .oauth2) : nil
        case .webPush:
            guard let (service, id) = WebPushSubscriptions.endpoint(inPath: request.path) else { return nil }
            let home: RealHost =
                switch service {
                case .apple: .appleWebPush
                case .mozilla: .mozillaWebPush
                case .google: .fcm
                }
            return (.webPush(WebPushEndpoint.Target(service: service, id: String(id))), home)
        }
    }

    /// The first route a request matches (the table's entries are read in place, never copied:
    /// this runs for every push).
    static func find(_ request: HTTPServerRequest, host: RealHost?, tokenPath: String) -> Match? {
        let head = request.path.utf8HeadWord
        for index in table.indices {
            if let (target, home) = table[index].match(request, head: head, host: host, tokenPath: tokenPath) {
                return Match(
                    target: target, home: home, service: table[index].service, takesTurns: table[index].takesTurns, isAPNs: table[index].isAPNs)
            }
        }
        return nil
    }

    /// Four bytes as `String.utf8HeadWord` makes them.
    @inline(__always)
    static func word(_ a: Unicode.Scalar, _ b: Unicode.Scalar, _ c: Unicode.Scalar, _ d: Unicode.Scalar) -> UInt32 {
        UInt32(a.value) | UInt32(b.value) << 8 | UInt32(c.value) << 16 | UInt32(d.value) << 24
    }
}
