import Logging
import PushMockCore
import PushMockStore
import PushMockTransport

/// `POST /token`: Google's OAuth2 token endpoint for service accounts and user credentials. Faults with
/// `service: oauth` apply here as on every push endpoint: a forced rejection answers in OAuth's
/// own error format (`{"error": reason, "error_description": …}`).
final class OAuthEndpoint: Sendable {
    let endpoint: OAuthTokenEndpoint
    let tokens: AccessTokenStore
    let recorder: PushRecorder
    let clock: PushMockClock
    let logger: Logger

    init(endpoint: OAuthTokenEndpoint, tokens: AccessTokenStore, recorder: PushRecorder, clock: PushMockClock, logger: Logger) {
        self.endpoint = endpoint
        self.tokens = tokens
        self.recorder = recorder
        self.clock = clock
        self.logger = logger
    }

    func respond(to request: HTTPServerRequest, context: RequestContext, claims: FaultClaims? = nil) -> ResponderResult {
        let now = clock.now
        let outcome: OAuthTokenEndpoint.Outcome
        if request.method != "POST" {
            outcome = .refused(.init(error: "invalid_request", description: "Invalid request method: \(request.method); use POST"), account: nil)
        } else if case .bodySize(let limit)? = request.limitExceeded {
            // Never read past the cap: a truncated form could read as a valid one.
            outcome = .refused(
                .init(error: "invalid_request", description: "the form is larger than PushMock's \(limit)-byte body cap (--max-body-size)"),
                account: nil)
        } else {
            outcome = endpoint.handle(form: request.body, now: now, store: tokens)
        }
        var (status, json) = outcome.response
        if request.limitExceeded != nil { status = 413 }
        var identity: String?
        var project: String?
        var reason: String?
        var explanation: String?
        switch outcome {
        case .issued(_, _, let account, let accountProject):
            identity = account
            project = accountProject
        case .issuedToUser(_, _, _, let client):
            identity = AccessTokenStore.Grant.userPrefix + client
        case .refused(let problem, _):
            reason = problem.error
            explanation = problem.description
            logger.debug("OAuth token refused", metadata: ["error": "\(problem.error)", "description": "\(problem.description)"])
        }
        let fault = recorder.fault(.oauth, path: request.path, project: project, claims: claims)
        if let fault, case .reject(let forced, let forcedReason, _) = fault.action {
            status = forced
            reason = forcedReason
            explanation = "fault \(fault.id)"
            json = #"{"error":"\#(JSONText.escape(forcedReason))","error_description":"PushMock fault \#(JSONText.escape(fault.id))"}"#
        }
        var recorded = PushOutcome(.oauth, reason == nil ? .accepted : .rejected)
        recorded.identity = identity
        recorded.reason = reason
        recorded.explanation = explanation
        recorded.project = project
        let response = GooglePages.json(
            status: status, json + "\n", extraHeaders: [("cache-control", "no-cache, no-store, max-age=0, must-revalidate")])
        return recorder.record(recorded, of: request, at: now, response: response, fault: fault, context: context)
    }
}
