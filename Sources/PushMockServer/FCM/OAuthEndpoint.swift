import Logging
import PushMockCore
import PushMockStore
import PushMockTransport

/// `POST /token`: Google's OAuth2 token endpoint for service accounts and user credentials. Faults with
/// `service: oauth` apply here as on every push endpoint: a forced rejection answers in OAuth's
/// own error format (`{"error": reason, "error_description": …}`).
final class OAuthEndpoint: PushEndpoint, Sendable {
    static let service = Delivery.Service.oauth
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

    /// A token request as the endpoint answered it, before any fault.
    struct Judgement {
        var status: Int
        var json: String
        var identity: String?
        var project: String?
        var reason: String?
        var explanation: String?
    }

    func judge(_ request: HTTPServerRequest, target: Void, context: RequestContext, now: PushInstant) -> Judgement {
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
        var judgement = Judgement(status: status, json: json)
        switch outcome {
        case .issued(_, _, let account, let accountProject):
            judgement.identity = account
            judgement.project = accountProject
        case .issuedToUser(_, _, _, let client):
            judgement.identity = AccessTokenStore.Grant.userPrefix + client
        case .refused(let problem, _):
            judgement.reason = problem.error
            judgement.explanation = problem.description
            logger.debug("OAuth token refused", metadata: ["error": "\(problem.error)", "description": "\(problem.description)"])
        }
        return judgement
    }

    func faultFacts(of judgement: inout Judgement) -> FaultFacts? {
        FaultFacts(project: judgement.project)
    }

    /// A rejecting fault answers in OAuth's own error format.
    func answer(
        _ judgement: inout Judgement, fault: FiredFault?, request: HTTPServerRequest, context: RequestContext, now: PushInstant
    ) -> (response: HTTPServerResponse, outcome: PushOutcome) {
        if let fault, let rejection = fault.rejection {
            judgement.status = rejection.status
            judgement.reason = rejection.reason
            judgement.explanation = "fault \(fault.id)"
            judgement.json = #"{"error":"\#(JSONText.escape(rejection.reason))","error_description":"PushMock fault \#(JSONText.escape(fault.id))"}"#
        }
        var recorded = PushOutcome(.oauth, judgement.reason == nil ? .accepted : .rejected)
        recorded.identity = judgement.identity
        recorded.reason = judgement.reason
        recorded.explanation = judgement.explanation
        recorded.project = judgement.project
        let response = GooglePages.json(
            status: judgement.status, judgement.json + "\n", extraHeaders: [("cache-control", "no-cache, no-store, max-age=0, must-revalidate")])
        return (response, recorded)
    }
}
