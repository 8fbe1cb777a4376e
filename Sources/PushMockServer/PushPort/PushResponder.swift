import Foundation
import PushMockCore
import PushMockStore
import PushMockTransport
import Synchronization

/// Routes push-port requests to their endpoint: `/3/device/…` to APNs, `/1/apps/…` and
/// `/4/broadcasts/…` to broadcast channels, `messages:send` to FCM, the IID paths to topics and the
/// token path to OAuth (in transparent mode, by the real host the request names); anything else
/// gets the 404 of the service it looks like. Transport limits become 413 and 431 answers on the
/// same connection, and a fleet's `count` faults are claimed before a request is routed.
final class PushResponder: HTTPResponder {
    private let mode: PushMockConfiguration.Mode
    /// Transparent mode: names other than the real hosts and loopback get 421.
    private let transparent: Bool
    private let apns: APNSEndpoint
    private let broadcast: BroadcastEndpoint
    private let fcm: FCMEndpoint
    private let iid: IIDEndpoint
    private let oauth: OAuthEndpoint
    private let webPush: WebPushEndpoint
    private let tokenPath: String
    private let streamsBeforeAuthentication: UInt32
    private let ids = Mutex(IDGenerator())
    let metrics: ServerMetrics
    /// A fleet's order of pushes to one Live Activity.
    private let turns: ActivityTurns
    /// Whether a fleet orders Live Activity pushes, kept as a Bool: reading `turns.order != nil`
    /// on every push copied the existential to compare it (~200 instructions).
    private let takesFleetTurns: Bool

    init(
        mode: PushMockConfiguration.Mode, apns: APNSEndpoint, broadcast: BroadcastEndpoint, fcm: FCMEndpoint, iid: IIDEndpoint, oauth: OAuthEndpoint,
        webPush: WebPushEndpoint, tokenPath: String, transparent: Bool, streamsBeforeAuthentication: UInt32, metrics: ServerMetrics,
        activityOrder: (any FleetActivityOrder)?
    ) {
        self.metrics = metrics
        self.transparent = transparent
        self.mode = mode
        self.apns = apns
        self.broadcast = broadcast
        self.fcm = fcm
        self.iid = iid
        self.oauth = oauth
        self.webPush = webPush
        self.tokenPath = tokenPath
        self.streamsBeforeAuthentication = streamsBeforeAuthentication
        turns = ActivityTurns(order: activityOrder, activities: apns.activities)
        takesFleetTurns = activityOrder != nil
    }

    func http2Settings(for connection: ConnectionInfo, defaults: HTTP2Settings) -> HTTP2Settings {
        // APNs allows one stream on a token connection until its first valid provider token.
        // Google's hosts have no such rule: a connection whose SNI names one gets every stream
        // from the start. (Without SNI, or with localhost, the connection may be APNs's.)
        guard mode == .push, connection.clientCertificateChain.isEmpty else { return defaults }
        switch RealHost(authority: connection.serverName) {
        case .fcm, .oauth2, .iid, .appleWebPush, .mozillaWebPush: return defaults
        case .apns, .broadcast, nil: break
        }
        var settings = defaults
        settings.maxConcurrentStreams = min(defaults.maxConcurrentStreams, streamsBeforeAuthentication)
        return settings
    }

    func transportEvent(_ event: TransportEvent, connection: ConnectionInfo?) {
        metrics.record(event)
    }

    func connectionAccepted() {
        metrics.connectionOpened()
    }

    func connectionReleased() {
        metrics.connectionClosed()
    }

    func respond(to request: HTTPServerRequest, context: RequestContext) -> ResponderResult {
        if mode == .acceptAll {
            return .response(acceptAll(request))
        }
        let started = Self.monotonicNanoseconds()
        let (service, result) = route(request, context: context)
        return timed(result, service: service, started: started)
    }

    /// `result`, with its latency observed when it is answered (taken, not copied: returning a
    /// borrowed result retained the response's storage and released it again).
    private func timed(_ result: consuming ResponderResult, service: Delivery.Service?, started: Int64) -> ResponderResult {
        switch result {
        case .delayed(let response, let delay, let answered):
            // An injected delay, which the transport waits out: in flight until it is answered,
            // and timed with it.
            metrics.requestDeferred()
            let metrics = self.metrics
            return .delayed(
                response, by: delay,
                answered: {
                    metrics.deferredRequestFinished()
                    metrics.observeLatency(service: service, nanoseconds: Self.nanoseconds(since: started))
                    answered?()
                })
        case .resumed(let resumption):
            // Waiting for a fleet-wide claim: in flight meanwhile, and timed with it. No longer in
            // flight once answered, or once the transport drops the answer (its connection gone).
            metrics.requestDeferred()
            let finished = RunOnce { [metrics] in metrics.deferredRequestFinished() }
            return .resumed(
                ResponderResumption(work: resumption.work) { [self] context in
                    finished.run()
                    return timed(resumption.respond(context), service: service, started: started)
                })
        case .response, .resetStream, .stream, .deferred:
            metrics.observeLatency(service: service, nanoseconds: Self.nanoseconds(since: started))
        }
        return result
    }

    private static func nanoseconds(since start: Int64) -> Int64 {
        monotonicNanoseconds() - start
    }

    /// Read twice per push, directly (a `ContinuousClock` instant's `Duration` took 128-bit
    /// arithmetic to turn into nanoseconds, ~1% of a push).
    private static func monotonicNanoseconds() -> Int64 {
        MonotonicClock.nanoseconds()
    }

    /// The service a request is for (nil: none, a refusal or a page) and its answer.
    private func route(_ request: HTTPServerRequest, context: RequestContext) -> (service: Delivery.Service?, result: ResponderResult) {
        // A header list over the limit is a transport refusal (431) on every endpoint: the headers
        // it has are incomplete, so no validator sees it (it is counted in /metrics).
        if let limit = request.limitExceeded, case .headerListSize = limit {
            return (nil, .response(Self.limitResponse(limit)))
        }
        // A real host's name (transparent mode, the CONNECT proxy, --resolve) serves only that
        // host's paths; localhost and addresses serve every path.
        let authority = request.authority ?? context.connection.serverName
        let host = RealHost(authority: authority)
        if host == nil, transparent, let authority, !RealHost.isLocal(authority) {
            return (nil, .response(Self.misdirected(authority)))
        }
        let found = PushRoute.find(request, host: host, tokenPath: tokenPath)
        // Any other endpoint is not APNs: it never holds a connection at one stream.
        if found?.isAPNs != true, context.control.maxConcurrentStreams < apns.raisedStreamLimit {
            context.control.setMaxConcurrentStreams(apns.raisedStreamLimit)
        }
        if let found {
            guard host == nil || host == found.home else { return (nil, .response(Self.notFound(request, on: host))) }
            return (found.service, dispatch(found, request, context: context, claims: nil, ordered: false))
        }
        if let host {
            return (nil, .response(Self.notFound(request, on: host)))
        }
        let path = request.path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
        if path.hasPrefix("/v1/") || path.hasPrefix("/iid/") || path == "/batch" || path.hasPrefix("/fcm/") || path.hasPrefix("/oauth2/") {
            // Google's front end answers unknown paths, the retired batch and legacy endpoints with HTML.
            return (nil, .response(GooglePages.notFound(path: String(path))))
        }
        if let limit = request.limitExceeded {
            return (nil, .response(Self.limitResponse(limit)))
        }
        if request.path == "/livez" && (request.method == "GET" || request.method == "HEAD") {
            return (nil, .response(.json(status: 200, #"{"status":"ok"}"#)))
        }
        return (nil, .response(Self.notFound(request, on: nil)))
    }

    /// A routed request served: after its turn among a fleet's pushes to one Live Activity, and
    /// with the fires of a fleet's `count` faults claimed from the shared counter (almost always
    /// neither: it is served at once).
    private func dispatch(
        _ route: PushRoute.Match, _ request: HTTPServerRequest, context: RequestContext, claims: FaultClaims?, ordered: Bool
    ) -> ResponderResult {
        if !ordered, route.takesTurns, takesFleetTurns,
            let pending = turns.taking(
                request, answer: { [self] context in self.dispatch(route, request, context: context, claims: nil, ordered: true) })
        {
            return pending
        }
        // Checked before any closure is made: this runs for every push.
        if claims == nil, apns.recorder.mayClaim(route.service, path: request.path),
            let pending = claiming(
                route.service, request,
                answer: { [self] context, claims in self.dispatch(route, request, context: context, claims: claims, ordered: ordered) })
        {
            return pending
        }
        switch route.target {
        case .apns: return apns.serve(request, target: (), context: context, claims: claims, ordered: ordered)
        case .broadcast: return broadcast.serve(request, target: (), context: context, claims: claims, ordered: ordered)
        case .fcm(let project): return fcm.serve(request, target: project, context: context, claims: claims, ordered: ordered)
        case .iid(let operation): return iid.serve(request, target: operation, context: context, claims: claims, ordered: ordered)
        case .oauth: return oauth.serve(request, target: (), context: context, claims: claims, ordered: ordered)
        case .webPush(let target): return webPush.serve(request, target: target, context: context, claims: claims, ordered: ordered)
        }
    }

    /// With a fleet's `count` fault that may fire for a request: its fires are claimed from the
    /// shared counter first, then `answer` serves it with them. Nil (almost always): none to claim.
    private func claiming(
        _ service: Delivery.Service, _ request: HTTPServerRequest, answer: @escaping @Sendable (RequestContext, FaultClaims) -> ResponderResult
    ) -> ResponderResult? {
        apns.recorder.claimingFaults(
            service, path: request.path,
            facts: {
                // Read only while a fleet counts a `count` fault (rare): APNs names its device token
                // in the path and its topic in a header; FCM's plain `message.token` and the path's
                // project (a topic or condition is left to the endpoint).
                var facts = FaultFacts()
                if service == .apns, request.path.hasPrefix(APNSDevicePath.prefix) {
                    facts.token = APNSDevicePath.token(in: request.path).map(String.init)
                    facts.topic = request.headers["apns-topic"]
                } else if service == .fcm {
                    facts.project = FCMEndpoint.project(in: request.path)
                    if case .string(let sent)? = JSONValue.parse(request.body)?["message"]?["token"] { facts.token = sent }
                }
                return facts
            },
            answer: answer
        )
    }

    /// What a host answers for a path it does not serve: Google's HTML page, or APNs' `BadPath`.
    private static func notFound(_ request: HTTPServerRequest, on host: RealHost?) -> HTTPServerResponse {
        switch host {
        case .fcm?, .oauth2?, .iid?, .mozillaWebPush?:
            let route = request.path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
            return GooglePages.notFound(path: String(route))
        case .apns?, .broadcast?, .appleWebPush?, nil:
            let where_ = host.map { " on \($0.rawValue) hosts" } ?? ""
            let description = "PushMock has no endpoint at \(request.method) \(request.path)\(where_)"
            return .json(status: 404, #"{"reason":"BadPath","description":"\#(JSONText.escape(description))"}"#)
        }
    }

    /// 421 for a name that is not one of the real hosts, in transparent mode.
    private static func misdirected(_ authority: String) -> HTTPServerResponse {
        let names = RealHost.names.keys.sorted().joined(separator: ", ")
        let description = "PushMock in transparent mode answers as \(names) (and localhost); not \(authority)"
        return .json(status: 421, #"{"reason":"MisdirectedRequest","description":"\#(JSONText.escape(description))"}"#)
    }

    private func acceptAll(_ request: HTTPServerRequest) -> HTTPServerResponse {
        let apnsID = request.headers["apns-id"] ?? ids.withLock { $0.nextUUIDString() }
        var headers = HTTPHeaderList(capacity: 1)
        headers.append("apns-id", apnsID, neverIndex: true)
        return HTTPServerResponse(status: 200, headers: headers)
    }

    static func limitResponse(_ limit: RequestLimit) -> HTTPServerResponse {
        switch limit {
        case .bodySize(let max):
            return .json(status: 413, #"{"reason":"PayloadTooLarge","description":"request body larger than \#(max) bytes"}"#)
        case .headerListSize(let max):
            return .json(status: 431, #"{"reason":"HeaderListTooLarge","description":"header list larger than \#(max) bytes"}"#)
        }
    }
}
