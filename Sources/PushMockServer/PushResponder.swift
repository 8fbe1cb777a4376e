import PushMockCore
import PushMockInspection
import PushMockTransport
import Synchronization

/// Routes push-port requests. Until the APNs and FCM endpoints exist it answers `/livez` and
/// refuses everything else with a 404 JSON body that names the request; transport limits become
/// 413 and 431 answers on the same connection.
final class PushResponder: HTTPResponder {
    private let mode: PushMockConfiguration.Mode
    private let ids = Mutex(IDGenerator())

    init(mode: PushMockConfiguration.Mode) {
        self.mode = mode
    }

    func respond(to request: HTTPServerRequest, context: RequestContext) -> ResponderResult {
        if let limit = request.limitExceeded {
            return .response(Self.limitResponse(limit))
        }
        switch mode {
        case .acceptAll:
            return .response(acceptAll(request))
        case .push:
            return .response(route(request))
        }
    }

    private func route(_ request: HTTPServerRequest) -> HTTPServerResponse {
        if request.path == "/livez" && (request.method == "GET" || request.method == "HEAD") {
            return Self.response(HealthEndpoints.livez())
        }
        let description = "PushMock has no endpoint at \(request.method) \(request.path)"
        return .json(status: 404, #"{"reason":"BadPath","description":"\#(JSONText.escape(description))"}"#)
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
