import Foundation
import Logging
import PushMockCore
import PushMockInspection
import PushMockStore
import PushMockTransport

/// FCM topic management, recorded as service `iid`:
///
/// - Instance ID (`iid.googleapis.com`), what the Admin SDKs' `subscribe_to_topic` used for years
///   (Node, Java, Go, and Python's `…_legacy`): `POST /iid/v1:batchAdd` and `:batchRemove` with
///   `{"to": "/topics/…", "registration_tokens": […]}`, `POST /iid/v1/{token}/rel/topics/{topic}`,
///   `GET /iid/info/{token}[?details=true]`; errors as `{"error": "CODE"}`.
/// - FCM v1 (`fcm.googleapis.com`), what firebase-admin-python 7 sends one token at a time:
///   `POST /v1/projects/{p}/registrations/{token}/topicSubscriptions?topic_name=…` and
///   `DELETE …/topicSubscriptions/{topic}[?allow_missing=true]`; errors in Google's envelope.
final class IIDEndpoint: PushEndpoint, Sendable {
    static let service = Delivery.Service.iid
    let fcm: FCMEndpoint
    let subscriptions: TopicSubscriptions
    let devices: DeviceRegistry
    let recorder: PushRecorder
    let clock: PushMockClock
    /// Require `access_token_auth: true` with a bearer token on Instance ID, as Google documents it.
    let requireAccessTokenAuth: Bool
    /// Served, or answered as turned down.
    let mode: InstanceIDMode

    init(fcm: FCMEndpoint, subscriptions: TopicSubscriptions, requireAccessTokenAuth: Bool, mode: InstanceIDMode = .available) {
        self.fcm = fcm
        self.subscriptions = subscriptions
        self.devices = fcm.devices
        self.recorder = fcm.recorder
        self.clock = fcm.clock
        self.requireAccessTokenAuth = requireAccessTokenAuth
        self.mode = mode
    }

    /// Google's dates for the Instance ID server API (developers.google.com/instance-id/reference):
    /// no new projects from 2026-10-01, turned down on 2027-09-29.
    static let onboardingEnds = InspectionTime(milliseconds: 1_790_812_800_000)  // 2026-10-01T00:00:00Z
    static let turnDown = InspectionTime(milliseconds: 1_822_176_000_000)  // 2027-09-29T00:00:00Z

    /// The diagnostic every Instance ID call is recorded with, dated by the server's clock.
    static func turnDownDiagnostic(now: PushInstant) -> String {
        let day = { (time: InspectionTime) in String(time.text.prefix(10)) }
        let when =
            now.millisecondsSinceEpoch >= turnDown.milliseconds
            ? "was turned down on \(day(turnDown))"
            : "is turned down on \(day(turnDown)) (no new projects since \(day(onboardingEnds)))"
        return
            "Instance ID server API: Google \(when); move topic management to FCM v1 topicSubscriptions: POST /v1/projects/{project}/registrations/{token}/topicSubscriptions?topic_name={topic}, DELETE …/topicSubscriptions/{topic} (serve --iid turned-down answers as the turned-down API)"
    }

    /// The operations, by path.
    enum Operation: Equatable {
        case batch(add: Bool)
        case relate(token: String, topic: String)
        case info(token: String)
        case subscribe(project: String, token: String)
        case unsubscribe(project: String, token: String, topic: String)
    }

    /// The operation a path names, or `nil` when it is not topic management.
    static func operation(path: String, method: String) -> Operation? {
        let route = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
        if route == "/iid/v1:batchAdd" { return .batch(add: true) }
        if route == "/iid/v1:batchRemove" { return .batch(add: false) }
        let parts = route.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { Self.decode($0) }
        if parts.count == 3, parts[0] == "iid", parts[1] == "info", !parts[2].isEmpty {
            return .info(token: parts[2])
        }
        if parts.count == 6, parts[0] == "iid", parts[1] == "v1", parts[3] == "rel", parts[4] == "topics", !parts[2].isEmpty {
            return .relate(token: parts[2], topic: parts[5])
        }
        if parts.count >= 6, parts[0] == "v1", parts[1] == "projects", parts[3] == "registrations", parts[5] == "topicSubscriptions" {
            if parts.count == 6 { return .subscribe(project: parts[2], token: parts[4]) }
            if parts.count == 7 { return .unsubscribe(project: parts[2], token: parts[4], topic: parts[6]) }
        }
        return nil
    }

    static func decode(_ part: Substring) -> String {
        PercentDecoding.pathSegment(part)
    }

    /// What one request came to, for the answer and the record.
    struct Judgement {
        var status = 200
        var body = "{}"
        var reason: String?
        var explanation: String?
        var identity: String?
        var project: String?
        var token: String?
        var topic: String?
        var diagnostics: [String] = []
        var googleEnvelope = false
        /// The subscription change the request asks for, judged as a dry run: made in `answer`,
        /// unless a fault rejects the request (a rejected request changes nothing).
        var commit: (() -> Void)?

        /// Refused, in Instance ID's own shape: `{"error": code}`.
        mutating func fail(_ status: Int, _ code: String, _ explanation: String) {
            self.status = status
            body = #"{"error":"\#(code)"}"#
            reason = code
            self.explanation = explanation
        }
    }

    func judge(_ request: HTTPServerRequest, target operation: Operation, context: RequestContext, now: PushInstant) -> Judgement {
        var result = Judgement()
        switch operation {
        case .batch, .relate, .info:
            instanceID(request, operation, now: now, context: context, into: &result)
        case .subscribe(let project, let token), .unsubscribe(let project, let token, _):
            result.googleEnvelope = true
            result.project = project
            result.token = token
            do throws(GoogleError) {
                let grant = try fcm.authenticate(request, project: project, context: context, now: now)
                result.identity = grant.clientEmail
                try topicSubscription(request, operation, now: now, into: &result)
            } catch {
                result.status = error.code
                result.body = error.json
                result.reason = error.recordedReason
                result.explanation = error.message
            }
        }
        return result
    }

    func faultFacts(of result: inout Judgement) -> FaultFacts? {
        FaultFacts(token: result.token, topic: result.topic, project: result.project)
    }

    /// A rejecting fault answers in the operation's own error format.
    func answer(
        _ result: inout Judgement, fault: FiredFault?, request: HTTPServerRequest, context: RequestContext, now: PushInstant
    ) -> (response: HTTPServerResponse, outcome: PushOutcome) {
        if let fault, let rejection = fault.rejection {
            let (status, reason) = rejection
            result.status = status
            result.reason = reason
            result.explanation = "fault \(fault.id)"
            result.commit = nil
            result.body =
                result.googleEnvelope
                ? GoogleError(code: status, message: reason, status: FCMEndpoint.statusName(status)).json
                : #"{"error":"\#(JSONText.escape(reason))"}"#
        }
        result.commit?()
        var recorded = PushOutcome(.iid, result.reason == nil ? .accepted : .rejected)
        recorded.bodyIsJSON = JSONValue.parse(request.body).map { if case .object = $0 { true } else { false } } ?? false
        recorded.identity = result.identity
        recorded.topic = result.topic
        recorded.deviceToken = result.token
        recorded.reason = result.reason
        recorded.explanation = result.explanation
        recorded.diagnostics = result.diagnostics
        recorded.project = result.project
        let response = GooglePages.json(status: result.status, result.body.hasSuffix("\n") ? result.body : result.body + "\n")
        return (response, recorded)
    }

    // MARK: Instance ID

    private func instanceID(
        _ request: HTTPServerRequest, _ operation: Operation, now: PushInstant, context: RequestContext, into result: inout Judgement
    ) {
        result.diagnostics.append(Self.turnDownDiagnostic(now: now))
        if mode == .turnedDown {
            return turnedDown(request, operation, into: &result)
        }
        // Instance ID reads `Authorization: Bearer` as an OAuth token only with `access_token_auth: true`;
        // without it the value is taken for a legacy server key, which Google retired.
        guard let grant = try? fcm.authenticate(request, project: nil, context: context, now: now) else {
            return result.fail(
                401, "Unauthorized",
                "Instance ID needs `Authorization: Bearer <access token>` from the OAuth endpoint (or a self-signed service-account JWT), valid and unexpired"
            )
        }
        result.identity = grant.clientEmail
        result.project = grant.projectID
        if requireAccessTokenAuth, request.headers["access_token_auth"]?.lowercased() != "true" {
            return result.fail(
                401, "Unauthorized",
                "the `access_token_auth: true` header is missing: without it Instance ID takes the bearer token for a legacy server key (serve --iid-lenient-auth accepts it)"
            )
        }
        let project = grant.projectID
        switch operation {
        case .info(let token):
            guard request.method == "GET" else { return result.fail(404, "NOT_FOUND", "GET /iid/info/{token}; got \(request.method)") }
            result.token = token
            guard fcm.validator.isRegistrationToken(token) else {
                return result.fail(400, "InvalidToken", "\(token) is not a registration token")
            }
            let record = devices.record(for: token)
            if let record, record.state != .active {
                return result.fail(404, "No information found about this instance id.", "the device registry has \(token) as unregistered or expired")
            }
            let details = request.path.contains("details=true")
            result.body = infoJSON(token: token, record: record, project: record?.fcmProject ?? project, details: details)
        case .relate(let token, let topic):
            guard request.method == "POST" else {
                return result.fail(404, "NOT_FOUND", "POST /iid/v1/{token}/rel/topics/{topic}; got \(request.method)")
            }
            result.token = token
            result.topic = topic
            guard FCMMessageValidator.isTopicName(topic) else {
                return result.fail(400, "INVALID_ARGUMENT", "topic names match [a-zA-Z0-9-_.~%]{1,900}; got \(topic)")
            }
            let outcome = change(add: true, [token], topic: topic, project: project, now: now, into: &result)
            if let code = outcome.results[0].errorCode {
                return result.fail(code == "NOT_FOUND" ? 404 : 400, code, explanation(outcome.results[0], token: token))
            }
        case .batch(let add):
            batch(request, add: add, project: project, now: now, into: &result)
        case .subscribe, .unsubscribe:
            break
        }
    }

    /// `POST /iid/v1:batchAdd` and `:batchRemove`: up to 1 000 tokens to or from one topic, a
    /// result per token.
    private func batch(_ request: HTTPServerRequest, add: Bool, project: String, now: PushInstant, into result: inout Judgement) {
        guard request.method == "POST" else { return result.fail(404, "NOT_FOUND", "POST \(request.path); got \(request.method)") }
        if case .bodySize(let limit)? = request.limitExceeded {
            return result.fail(
                413, "INVALID_ARGUMENT",
                "the body is larger than PushMock's \(limit)-byte cap (about \(limit / 150) real-length tokens); serve --max-body-size 262144 takes 1 000"
            )
        }
        guard let json = JSONValue.parse(request.body), case .object = json else {
            return result.fail(400, "INVALID_ARGUMENT", "the body is not a JSON object: {\"to\": \"/topics/…\", \"registration_tokens\": […]}")
        }
        guard case .string(let to)? = json["to"], to.hasPrefix("/topics/") else {
            return result.fail(400, "INVALID_ARGUMENT", "`to` must be a string \"/topics/<name>\"")
        }
        let topic = String(to.dropFirst("/topics/".count))
        result.topic = topic
        guard FCMMessageValidator.isTopicName(topic) else {
            return result.fail(400, "INVALID_ARGUMENT", "topic names match [a-zA-Z0-9-_.~%]{1,900}; got \(topic)")
        }
        guard case .array(let values)? = json["registration_tokens"], !values.isEmpty else {
            return result.fail(400, "INVALID_ARGUMENT", "`registration_tokens` must be a non-empty array of strings")
        }
        var tokens: [String] = []
        for value in values {
            guard case .string(let token) = value, !token.isEmpty else {
                return result.fail(400, "INVALID_ARGUMENT", "`registration_tokens` must hold non-empty strings")
            }
            tokens.append(token)
        }
        guard tokens.count <= TopicSubscriptions.maxTokensPerRequest else {
            return result.fail(
                400, "INVALID_ARGUMENT",
                "\(tokens.count) registration tokens; Instance ID takes at most \(TopicSubscriptions.maxTokensPerRequest) per request")
        }
        if tokens.count == 1 { result.token = tokens[0] }
        let outcome = change(add: add, tokens, topic: topic, project: project, now: now, into: &result)
        result.body = #"{"results":["# + outcome.results.map { $0.errorCode.map { #"{"error":"\#($0)"}"# } ?? "{}" }.joined(separator: ",") + "]}"
        let failed = zip(tokens, outcome.results).filter { $0.1 != .done }
        result.diagnostics.append(
            "\(add ? "subscribed" : "unsubscribed") \(tokens.count - failed.count) of \(tokens.count) token\(tokens.count == 1 ? "" : "s") \(add ? "to" : "from") \(topic) in project \(project)"
        )
        for (token, tokenResult) in failed.prefix(20) {
            result.diagnostics.append("\(token): \(tokenResult.errorCode ?? "") (\(explanation(tokenResult, token: token)))")
        }
        result.diagnostics.append("\(topic) has \(outcome.subscribers.count) subscriber\(outcome.subscribers.count == 1 ? "" : "s")")
    }

    /// What subscribing (`add`) or unsubscribing `tokens` comes to, as a dry run; the change itself
    /// is left in `result.commit` for `answer`.
    func change(
        add: Bool, _ tokens: [String], topic: String, project: String, now: PushInstant, into result: inout Judgement
    ) -> (results: [TopicSubscriptions.TokenResult], subscribers: TopicSubscriptions.Subscribers) {
        let apply = { (commit: Bool) in
            add
                ? self.subscriptions.subscribe(tokens, to: topic, project: project, now: now.millisecondsSinceEpoch, commit: commit) {
                    self.check($0, project: project)
                }
                : self.subscriptions.unsubscribe(tokens, from: topic, project: project, commit: commit) { self.check($0, project: project) }
        }
        result.commit = { _ = apply(true) }
        return apply(false)
    }

    /// `--iid turned-down`: what PushMock expects of the API once Google has turned it down (Google
    /// has not said; this is PushMock's choice). The legacy send API, once turned down, answered
    /// 200 with `{"error":"DeprecatedApi"}` for each recipient: so do the batch calls, one result per
    /// token (a sender that reads only the status sees success, as it would); the one-token calls
    /// answer 404 with that error. Nothing is subscribed or read.
    private func turnedDown(_ request: HTTPServerRequest, _ operation: Operation, into result: inout Judgement) {
        let deprecated = #"{"error":"DeprecatedApi"}"#
        result.reason = "DeprecatedApi"
        result.explanation =
            "the Instance ID server API is turned down (serve --iid turned-down); Google's FCM v1 topicSubscriptions replaces it"
        switch operation {
        case .batch:
            var count = 1
            if let json = JSONValue.parse(request.body), case .array(let tokens)? = json["registration_tokens"], !tokens.isEmpty {
                count = tokens.count
                if tokens.count == 1, case .string(let token) = tokens[0] { result.token = token }
            }
            if let json = JSONValue.parse(request.body), case .string(let to)? = json["to"], to.hasPrefix("/topics/") {
                result.topic = String(to.dropFirst("/topics/".count))
            }
            result.status = 200
            result.body = #"{"results":["# + Array(repeating: deprecated, count: count).joined(separator: ",") + "]}"
        case .relate(let token, let topic):
            result.token = token
            result.topic = topic
            result.status = 404
            result.body = deprecated
        case .info(let token):
            result.token = token
            result.status = 404
            result.body = deprecated
        case .subscribe, .unsubscribe:
            break
        }
    }

    private func infoJSON(token: String, record: DeviceRecord?, project: String, details: Bool) -> String {
        var members: [String] = []
        if let bundle = record?.bundleID { members.append(#""application":"\#(JSONText.escape(bundle))""#) }
        members.append(#""authorizedEntity":"\#(JSONText.escape(project))""#)
        members.append(#""platform":"\#(record?.environment != nil ? "IOS" : "ANDROID")""#)
        if details {
            let topics = subscriptions.topics(of: token)[project] ?? [:]
            let entries = topics.sorted { $0.key < $1.key }.map { topic, since in
                #""\#(JSONText.escape(topic))":{"addDate":"\#(Self.day(since))"}"#
            }
            members.append(#""rel":{"topics":{"# + entries.joined(separator: ",") + "}}")
        }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// `YYYY-MM-DD` (UTC) of an instant in milliseconds, as Instance ID's `addDate`.
    static func day(_ milliseconds: Int64) -> String {
        String(InspectionTime(milliseconds: milliseconds).text.prefix(10))
    }

    // MARK: Tokens

    /// A token as the device registry and the token rules judge it for `project`.
    func check(_ token: String, project: String) -> TopicSubscriptions.TokenResult {
        guard fcm.validator.isRegistrationToken(token) else { return .invalidArgument }
        guard let record = devices.record(for: token) else { return .done }
        if let owner = record.fcmProject, owner != project { return .senderMismatch }
        return record.state == .active ? .done : .notFound
    }

    private func explanation(_ result: TopicSubscriptions.TokenResult, token: String) -> String {
        switch result {
        case .done: "done"
        case .invalidArgument: "not a registration token"
        case .senderMismatch: "the device registry gives it to another project"
        case .notFound: "the device registry has it as unregistered or expired"
        case .tooManyTopics: "already subscribed to \(TopicSubscriptions.maxTopicsPerToken) topics"
        }
    }
}
