import Logging
import PushMockCore
import PushMockStore
import PushMockTransport

/// `POST /token`: Google's OAuth2 token endpoint for service accounts.
final class OAuthEndpoint: Sendable {
    let endpoint: OAuthTokenEndpoint
    let tokens: AccessTokenStore
    let recorder: DeliveryRecorder
    let clock: PushMockClock
    let logger: Logger

    init(endpoint: OAuthTokenEndpoint, tokens: AccessTokenStore, recorder: DeliveryRecorder, clock: PushMockClock, logger: Logger) {
        self.endpoint = endpoint
        self.tokens = tokens
        self.recorder = recorder
        self.clock = clock
        self.logger = logger
    }

    func respond(to request: HTTPServerRequest, context: RequestContext) -> HTTPServerResponse {
        let now = clock.nowMilliseconds
        let outcome: OAuthTokenEndpoint.Outcome
        if request.method != "POST" {
            outcome = .refused(.init(error: "invalid_request", description: "Invalid request method: \(request.method); use POST"), account: nil)
        } else {
            outcome = endpoint.handle(form: request.body, now: now / 1000, store: tokens)
        }
        let (status, json) = outcome.response
        var identity: String?
        var project: String?
        var reason: String?
        var explanation: String?
        switch outcome {
        case .issued(_, _, let account, let accountProject):
            identity = account
            project = accountProject
        case .refused(let problem, _):
            reason = problem.error
            explanation = problem.description
            logger.debug("OAuth token refused", metadata: ["error": "\(problem.error)", "description": "\(problem.description)"])
        }
        recorder.record(Delivery(
            receivedAt: now, connectionID: context.connection.id, httpVersion: context.connection.httpVersion.rawValue,
            service: .oauth, method: request.method, path: request.path,
            headers: request.headers.fields.map { HeaderField(name: $0.name, value: $0.value) }, body: request.body,
            identity: identity, outcome: reason == nil ? .accepted : .rejected, status: status, reason: reason, explanation: explanation,
            project: project
        ))
        return GooglePages.json(status: status, json + "\n", extraHeaders: [("cache-control", "no-cache, no-store, max-age=0, must-revalidate")])
    }
}
