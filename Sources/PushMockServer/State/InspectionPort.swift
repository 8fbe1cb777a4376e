import PushMockInspection
import PushMockTransport

/// Adapts the inspection listener to ``InspectionRouter``, which owns every route of the port:
/// each request is handed over as an ``InspectionRequest`` and answered from a task (the control
/// plane is async; the push port never is). Only the transport's own limits (413, 431) are
/// answered here, before a request exists.
struct InspectionPort: HTTPResponder {
    let router: InspectionRouter

    func respond(to request: HTTPServerRequest, context: RequestContext) -> ResponderResult {
        if let limit = request.limitExceeded {
            return .response(PushResponder.limitResponse(limit))
        }
        let inspection = InspectionRequest(
            method: request.method, target: request.path, headers: request.headers.fields.map { ($0.name, $0.value) },
            body: request.body, authority: request.authority
        )
        let router = self.router
        let answer = DeferredResponse()
        Task {
            switch await router.respond(to: inspection) {
            case .response(let response):
                answer.succeed(Self.http(response))
            case .stream(let head, let start):
                answer.stream(Self.http(head)) { writer in start(WriterSink(writer: writer)) }
            }
        }
        return .deferred(answer)
    }

    static func http(_ response: InspectionResponse) -> HTTPServerResponse {
        var headers: HTTPHeaderList = [("content-type", response.contentType)]
        for header in response.headers {
            headers.append(header.name, header.value)
        }
        return HTTPServerResponse(status: response.status, headers: headers, body: response.body.isEmpty ? nil : response.body)
    }
}

/// The transport's body writer as the inspection layer's ``EventSink``.
final class WriterSink: EventSink {
    let writer: ResponseBodyWriter

    init(writer: ResponseBodyWriter) {
        self.writer = writer
    }

    func write(_ bytes: [UInt8]) { writer.write(bytes) }
    func finish() { writer.finish() }
    func onClose(_ callback: @escaping @Sendable () -> Void) { writer.onClose(callback) }
    var isClosed: Bool { writer.isClosed }
    var backlog: Int { writer.backlog }
}
