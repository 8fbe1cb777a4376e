import PushMockCore
import PushMockInspection
import PushMockTransport
import Synchronization

/// Routes push-port requests: `/3/…` to APNs, `/livez`, and a 404 `BadPath` JSON body for
/// anything else. Transport limits become 413 and 431 answers on the same connection.
final class PushResponder: HTTPResponder {
    private let mode: PushMockConfiguration.Mode
    private let apns: APNSEndpoint
    private let fcm: FCMEndpoint
    private let oauth: OAuthEndpoint
    private let tokenPath: String
    private let streamsBeforeAuthentication: UInt32
    private let ids = Mutex(IDGenerator())
    let metrics: ServerMetrics

    init(mode: PushMockConfiguration.Mode, apns: APNSEndpoint, fcm: FCMEndpoint, oauth: OAuthEndpoint, tokenPath: String, streamsBeforeAuthentication: UInt32, metrics: ServerMetrics) {
        self.metrics = metrics
        self.mode = mode
        self.apns = apns
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

    func connectionOpened(_ connection: ConnectionInfo) {
        metrics.connectionOpened()
    }

    func connectionClosed(_ connection: ConnectionInfo) {
        metrics.connectionClosed()
    }

    func respond(to request: HTTPServerRequest, context: RequestContext) -> ResponderResult {
        if mode == .acceptAll {
            return .response(acceptAll(request))
        }
        if request.path.hasPrefix("/3/") {
            return apns.respond(to: request, context: context)
        }
        // Any other endpoint is not APNs: it never holds a connection at one stream.
        if context.control.maxConcurrentStreams < apns.raisedStreamLimit {
            context.control.setMaxConcurrentStreams(apns.raisedStreamLimit)
        }
        if let project = FCMEndpoint.project(in: request.path) {
            return fcm.respond(to: request, project: project, context: context)
        }
        let route = request.path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? request.path
        if route == tokenPath {
            return .response(oauth.respond(to: request, context: context))
        }
        if route.hasPrefix("/v1/") || route == "/batch" || route.hasPrefix("/fcm/") || route.hasPrefix("/oauth2/") {
            // Google's front end answers unknown paths, the retired batch and legacy endpoints with HTML.
            return .response(GooglePages.notFound(path: route))
        }
        if let limit = request.limitExceeded {
            return .response(Self.limitResponse(limit))
        }
        if request.path == "/livez" && (request.method == "GET" || request.method == "HEAD") {
            return .response(Self.response(HealthEndpoints.livez()))
        }
        let description = "PushMock has no endpoint at \(request.method) \(request.path)"
        return .response(.json(status: 404, #"{"reason":"BadPath","description":"\#(JSONText.escape(description))"}"#))
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

    func respond(to request: HTTPServerRequest, context: RequestContext) -> ResponderResult {
        if let limit = request.limitExceeded {
            return .response(PushResponder.limitResponse(limit))
        }
        if request.path == "/metrics", request.method == "GET" {
            let text = metrics.render(store: control.store)
            return .response(HTTPServerResponse(status: 200, headers: [("content-type", "text/plain; version=0.0.4; charset=utf-8")], body: Array(text.utf8)))
        }
        let inspection = InspectionRequest(method: request.method, target: request.path, body: request.body)
        if let answer = control.respond(to: inspection, eventLoop: context.eventLoop) {
            return answer
        }
        return .response(PushResponder.response(api.handle(inspection)))
    }
}
