import Foundation
import NIOCore
import PushMockCore
import PushMockInspection
import PushMockTransport
import Synchronization

/// Routes push-port requests: `/3/…` to APNs, `/livez`, and a 404 `BadPath` JSON body for
/// anything else. Transport limits become 413 and 431 answers on the same connection.
final class PushResponder: HTTPResponder {
    private let mode: PushMockConfiguration.Mode
    private let apns: APNSEndpoint
    private let broadcast: BroadcastEndpoint
    private let fcm: FCMEndpoint
    private let oauth: OAuthEndpoint
    private let tokenPath: String
    private let streamsBeforeAuthentication: UInt32
    private let ids = Mutex(IDGenerator())
    let metrics: ServerMetrics

    init(mode: PushMockConfiguration.Mode, apns: APNSEndpoint, broadcast: BroadcastEndpoint, fcm: FCMEndpoint, oauth: OAuthEndpoint, tokenPath: String, streamsBeforeAuthentication: UInt32, metrics: ServerMetrics) {
        self.metrics = metrics
        self.mode = mode
        self.apns = apns
        self.broadcast = broadcast
        self.fcm = fcm
        self.oauth = oauth
        self.tokenPath = tokenPath
        self.streamsBeforeAuthentication = streamsBeforeAuthentication
    }

    func http2Settings(for connection: ConnectionInfo, defaults: HTTP2Settings) -> HTTP2Settings {
        // APNs allows one stream on a token connection until its first valid provider token.
        guard mode == .push, connection.clientCertificateChain.isEmpty else { return defaults }
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
        let started = ContinuousClock.now
        let (service, result) = route(request, context: context)
        switch result {
        case .deferred(let future):
            metrics.requestDeferred()
            let metrics = self.metrics
            future.whenComplete { _ in
                metrics.deferredRequestFinished()
                metrics.observeLatency(service: service, nanoseconds: Self.nanoseconds(since: started))
            }
        case .response, .resetStream, .stream:
            metrics.observeLatency(service: service, nanoseconds: Self.nanoseconds(since: started))
        }
        return result
    }

    private static func nanoseconds(since start: ContinuousClock.Instant) -> Int64 {
        let elapsed = ContinuousClock.now - start
        return elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
    }

    private func route(_ request: HTTPServerRequest, context: RequestContext) -> (service: String, result: ResponderResult) {
        // A header list over the limit is a transport refusal (431) on every endpoint: the headers
        // it has are incomplete, so no validator sees it (it is counted in /metrics).
        if let limit = request.limitExceeded, case .headerListSize = limit {
            return ("other", .response(Self.limitResponse(limit)))
        }
        if request.path.hasPrefix("/3/") {
            return ("apns", apns.respond(to: request, context: context))
        }
        if request.path.hasPrefix("/1/apps/") || request.path.hasPrefix("/4/broadcasts/") {
            return ("broadcast", broadcast.respond(to: request, context: context))
        }
        // Any other endpoint is not APNs: it never holds a connection at one stream.
        if context.control.maxConcurrentStreams < apns.raisedStreamLimit {
            context.control.setMaxConcurrentStreams(apns.raisedStreamLimit)
        }
        if let project = FCMEndpoint.project(in: request.path) {
            return ("fcm", fcm.respond(to: request, project: project, context: context))
        }
        let route = request.path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? request.path
        if route == tokenPath {
            return ("oauth", .response(oauth.respond(to: request, context: context)))
        }
        if route.hasPrefix("/v1/") || route == "/batch" || route.hasPrefix("/fcm/") || route.hasPrefix("/oauth2/") {
            // Google's front end answers unknown paths, the retired batch and legacy endpoints with HTML.
            return ("other", .response(GooglePages.notFound(path: route)))
        }
        if let limit = request.limitExceeded {
            return ("other", .response(Self.limitResponse(limit)))
        }
        if request.path == "/livez" && (request.method == "GET" || request.method == "HEAD") {
            return ("other", .response(Self.response(HealthEndpoints.livez())))
        }
        let description = "PushMock has no endpoint at \(request.method) \(request.path)"
        return ("other", .response(.json(status: 404, #"{"reason":"BadPath","description":"\#(JSONText.escape(description))"}"#)))
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

    static func response(_ answer: InspectionResponse) -> HTTPServerResponse {
        HTTPServerResponse(status: answer.status, headers: [("content-type", answer.contentType)], body: answer.body)
    }
}

/// Serves the inspection API on the inspection port.
struct InspectionResponder: HTTPResponder {
    let api: InspectionAPI
    let control: ControlEndpoints
    let metrics: ServerMetrics
    /// The DNS-rebinding and cross-site guards.
    let browserGuard: InspectionGuard

    func respond(to request: HTTPServerRequest, context: RequestContext) -> ResponderResult {
        if let limit = request.limitExceeded {
            return .response(PushResponder.limitResponse(limit))
        }
        let target = request.path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? request.path
        if let refusal = browserGuard.hostRefusal(path: target, host: request.authority ?? request.headers["host"]) {
            return .response(PushResponder.response(refusal))
        }
        if let token = control.configuration.inspectionToken, !Self.isHealth(request.path), !Self.authorized(request, token: token) {
            return .response(HTTPServerResponse(
                status: 401,
                headers: [("content-type", "application/json"), ("www-authenticate", #"Bearer realm="pushmock-inspection""#)],
                body: Array(#"{"error":"this inspection API wants Authorization: Bearer <token> (the configured inspectionToken)"}"#.utf8)
            ))
        }
        let path = target
        if let (refusal, allow) = InspectionRoutes.refusal(method: request.method, path: path) {
            var headers: HTTPHeaderList = [("content-type", refusal.contentType)]
            if let allow { headers.append("allow", allow) }
            return .response(HTTPServerResponse(status: refusal.status, headers: headers, body: refusal.body))
        }
        if let refusal = browserGuard.crossSiteRefusal(method: request.method, path: path, headers: request.headers.fields.map { ($0.name, $0.value) }) {
            return .response(PushResponder.response(refusal))
        }
        if path == "/metrics", request.method == "GET" {
            // Query parameters (a scraper's, or anything) are ignored here.
            let text = metrics.render(store: control.store)
            return .response(HTTPServerResponse(status: 200, headers: [("content-type", "text/plain; version=0.0.4; charset=utf-8")], body: text))
        }
        let inspection = InspectionRequest(method: request.method, target: request.path, headers: request.headers.fields.map { ($0.name, $0.value) }, body: request.body)
        if let answer = control.respond(to: inspection, eventLoop: context.eventLoop) {
            return answer
        }
        return .response(PushResponder.response(api.handle(inspection)))
    }

    static func isHealth(_ target: String) -> Bool {
        target == "/livez" || target == "/readyz"
    }

    /// `Authorization: Bearer <token>`, or `access_token=<token>` in the query (EventSource cannot
    /// send headers). Compared in constant time.
    static func authorized(_ request: HTTPServerRequest, token: String) -> Bool {
        var presented: String?
        if let header = request.headers["authorization"], header.lowercased().hasPrefix("bearer ") {
            presented = String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        } else if request.path.contains("access_token=") {
            presented = InspectionRequest(method: request.method, target: request.path).query.last { $0.name == "access_token" }?.value
        }
        guard let presented else { return false }
        let a = Array(presented.utf8)
        let b = Array(token.utf8)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in 0..<a.count {
            difference |= a[index] ^ b[index]
        }
        return difference == 0
    }
}
