import NIOCore
import PushMockCore
import PushMockTransport

/// What a fault rule does to an answer already built (a rejection has been applied by the endpoint):
/// delay it, follow it with GOAWAY, or reset the stream instead. Shared by every push endpoint.
enum FaultEffects {
    static func apply(_ fault: FaultRule?, to response: HTTPServerResponse, context: RequestContext) -> ResponderResult {
        switch fault?.action {
        case .delay(let milliseconds):
            let promise = context.eventLoop.makePromise(of: HTTPServerResponse.self)
            context.eventLoop.scheduleTask(in: .milliseconds(Int64(milliseconds))) { promise.succeed(response) }
            return .deferred(promise.futureResult)
        case .goAway(let reason):
            context.control.goAway(errorCode: .noError, debugData: Array(#"{"reason":"\#(JSONText.escape(reason))"}"#.utf8))
            return .response(response)
        case .resetStream:
            return .resetStream(.cancel)
        case .reject, nil:
            return .response(response)
        }
    }
}
