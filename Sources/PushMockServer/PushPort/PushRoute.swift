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
    }

    let service: Delivery.Service
    /// The paths, as the docs write them (`{token-path}` is `serve --token-path`).
    let paths: [String]
    /// Live Activity pushes wait their turn across a fleet (``ActivityTurns``).
    let takesTurns: Bool
    /// An APNs path: a token connection keeps one stream until its first valid provider token.
    let isAPNs: Bool
    /// The target a request names on this route and the real host that serves it; nil when the
    /// request is not this route's. `tokenPath` is the OAuth token path served.
    let match: @Sendable (_ request: HTTPServerRequest, _ host: RealHost?, _ tokenPath: String) -> (target: Target, home: RealHost)?

    static let table: [PushRoute] = [
        PushRoute(service: .apns, paths: ["/3/device/{token}"], takesTurns: true, isAPNs: true) { request, _, _ in
            request.path.hasPrefix("/3/") ? (.apns, .apns) : nil
        },
        PushRoute(
            service: .broadcast, paths: ["/1/apps/{bundleId}/channels", "/1/apps/{bundleId}/all-channels", "/4/broadcasts/apps/{bundleId}"],
            takesTurns: true, isAPNs: true
        ) { request, _, _ in
            request.path.hasPrefix("/1/apps/") || request.path.hasPrefix("/4/broadcasts/") ? (.broadcast, .broadcast) : nil
        },
        PushRoute(service: .fcm, paths: ["/v1/projects/{project}/messages:send"], takesTurns: true, isAPNs: false) { request, _, _ in
            FCMEndpoint.project(in: request.path).map { (.fcm(project: $0), .fcm) }
        },
        PushRoute(
            service: .iid,
            paths: [
                "/iid/v1:batchAdd", "/iid/v1:batchRemove", "/iid/v1/{token}/rel/topics/{topic}", "/iid/info/{token}",
                "/v1/projects/{project}/registrations/{token}/topicSubscriptions",
                "/v1/projects/{project}/registrations/{token}/topicSubscriptions/{topic}",
            ],
            takesTurns: false, isAPNs: false
        ) { request, _, _ in
            guard let operation = IIDEndpoint.operation(path: request.path, method: request.method) else { return nil }
            switch operation {
            case .subscribe, .unsubscribe: return (.iid(operation), .fcm)
            case .batch, .relate, .info: return (.iid(operation), .iid)
            }
        },
        // On oauth2.googleapis.com both `/token` and the configured path; elsewhere the configured path.
        PushRoute(service: .oauth, paths: ["{token-path}", "/token"], takesTurns: false, isAPNs: false) { request, host, tokenPath in
            let path = request.path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
            return path == tokenPath || (host == .oauth2 && path == "/token") ? (.oauth, .oauth2) : nil
        },
    ]

    /// The first route a request matches, with its target and the real host that serves it.
    static func find(_ request: HTTPServerRequest, host: RealHost?, tokenPath: String) -> (route: PushRoute, target: Target, home: RealHost)? {
        for route in table {
            if let (target, home) = route.match(request, host, tokenPath) { return (route, target, home) }
        }
        return nil
    }
}
