import Foundation
import Logging
import PushMockCore
import PushMockTransport

/// iOS 18 broadcast (apns.md §10): channel management under `/1/apps/<bundleId>/…` and broadcast
/// sends to `/4/broadcasts/apps/<bundleId>`, on the push port, with the APNs connection's auth.
/// A broadcast reaches every simulated activity that joined the channel (`input-push-channel`).
struct BroadcastEndpoint: PushEndpoint, Sendable {
    static let service = Delivery.Service.broadcast
    let apns: APNSEndpoint
    let channels: BroadcastChannelStore
    /// Broadcast payloads may be this large (apns.md §9).
    static let maxPayload = 5120

    var recorder: PushRecorder { apns.recorder }
    var clock: PushMockClock { apns.clock }

    /// The three paths: channels, the list of channels, and sends.
    enum Route {
        case channels, allChannels, send
    }

    /// What a judged request asks for, once nothing in it is refused: it is done only when no
    /// fault rejects the request (a rejected request creates, deletes and reaches nothing).
    enum Action {
        case create(policy: Int)
        case read(BroadcastChannel)
        case delete(BroadcastChannel)
        case list
        case send(Accepted)
    }

    /// A broadcast request as APNs judged it, before any fault.
    struct Judgement {
        var verdict: BroadcastVerdict
        let state: APNSEndpoint.APNSState
        let environment: APNSEnvironment
        let route: Route?
        let bundleID: String
        let channelHeader: String?
        let json: JSONValue?
        var action: Action?
        var payloadDrop: LiveActivityRule?
        var diagnostics: [String] = []
    }

    /// The route and bundle ID of a path: `["1","apps",bundle,"channels"|"all-channels"]` or
    /// `["4","broadcasts","apps",bundle]`.
    static func route(of path: String) -> (route: Route, bundleID: String)? {
        let path = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? path
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        guard segments.count == 4 else { return nil }
        if segments[0] == "1", segments[1] == "apps", ["channels", "all-channels"].contains(segments[3]) {
            return (segments[3] == "channels" ? .channels : .allChannels, segments[2])
        }
        if segments[0] == "4", segments[1] == "broadcasts", segments[2] == "apps" {
            return (.send, segments[3])
        }
        return nil
    }

    func judge(_ request: HTTPServerRequest, target: Void, context: RequestContext, now: PushInstant) -> Judgement {
        let state = apns.state(for: context)
        let environment = apns.environment(for: request, connection: context.connection)
        let routed = Self.route(of: request.path)
        let bundleID = routed?.bundleID ?? ""
        // Parsed once for the channel config, the send checks, the fan-out and the recording.
        let json = request.body.isEmpty ? nil : JSONValue.parse(request.body)
        let verdict = apns.validator.authorizeBroadcast(
            headers: request.headers.fields, bundleID: bundleID, environment: environment, credential: state.credential, auth: &state.auth,
            now: now, ids: &state.ids
        )
        if verdict.authenticated, !state.raised {
            state.raised = true
            context.control.setMaxConcurrentStreams(apns.raisedStreamLimit)
        }
        var judgement = Judgement(
            verdict: verdict, state: state, environment: environment, route: routed?.route, bundleID: bundleID,
            channelHeader: request.headers["apns-channel-id"], json: json)
        // An unknown path is BadPath, whatever its credential.
        guard verdict.rejection == nil || routed == nil else { return judgement }
        switch action(of: request, judged: judgement, now: now) {
        case .failure(let problem):
            judgement.verdict.rejection = problem.reason
            judgement.verdict.explanation = problem.explanation
            judgement.payloadDrop = problem.rule
        case .success(let action):
            judgement.action = action
            if case .send(let accepted) = action {
                judgement.payloadDrop = accepted.drop
                judgement.diagnostics = accepted.diagnostics
            }
        }
        return judgement
    }

    /// What an authorized request asks for, or why it is refused.
    private func action(of request: HTTPServerRequest, judged judgement: Judgement, now: PushInstant) -> Result<Action, Problem> {
        let (bundleID, environment) = (judgement.bundleID, judgement.environment)
        switch judgement.route {
        case nil:
            return .failure(
                Problem(
                    .badPath, "broadcast paths are /1/apps/<bundleId>/channels, /1/apps/<bundleId>/all-channels and /4/broadcasts/apps/<bundleId>"))
        case .channels?:
            switch request.method {
            case "POST":
                guard !request.body.isEmpty else {
                    return .failure(
                        Problem(.payloadEmpty, "the body is empty; send {\"message-storage-policy\": 0|1, \"push-type\": \"LiveActivity\"}"))
                }
                return Self.channelConfig(judgement.json).map { .create(policy: $0) }
            case "GET", "DELETE":
                return lookUp(judgement.channelHeader, bundleID: bundleID, environment: environment).map {
                    request.method == "GET" ? .read($0) : .delete($0)
                }
            default:
                return .failure(Problem(.methodNotAllowed, nil))
            }
        case .allChannels?:
            return request.method == "GET" ? .success(.list) : .failure(Problem(.methodNotAllowed, nil))
        case .send?:
            guard request.method == "POST" else { return .failure(Problem(.methodNotAllowed, nil)) }
            return checkSend(
                request, json: judgement.json, channelHeader: judgement.channelHeader, bundleID: bundleID, environment: environment, now: now
            ).map { .send($0) }
        }
    }

    func faultFacts(of judgement: inout Judgement) -> FaultFacts? {
        FaultFacts(token: judgement.channelHeader, topic: judgement.bundleID)
    }

    func answer(
        _ judgement: inout Judgement, fault: FiredFault?, request: HTTPServerRequest, context: RequestContext, now: PushInstant
    ) -> (response: HTTPServerResponse, outcome: PushOutcome) {
        if let fault, let rejection = fault.rejection {
            judgement.verdict.rejection = APNSRejectionReason(rejection.reason, status: rejection.status)
            judgement.verdict.explanation = "fault \(fault.id)"
            judgement.action = nil
        }
        var done = Done()
        if let action = judgement.action {
            done = perform(action, request: request, judgement: &judgement, now: now)
        }
        let verdict = judgement.verdict
        var answerHeaders = HTTPHeaderList(capacity: 4)
        answerHeaders.append("apns-request-id", verdict.requestID, neverIndex: true)
        let response: HTTPServerResponse
        if let rejection = verdict.rejection {
            answerHeaders.append("content-type", "application/json")
            let text: String
            if let payloadDrop = judgement.payloadDrop, payloadDrop.reason == rejection.reason {
                text = #"{"reason":"\#(rejection.reason)","description":"\#(JSONText.escape(payloadDrop.explanation))"}"#
            } else {
                text = #"{"reason":"\#(JSONText.escape(rejection.reason))"}"#
            }
            response = HTTPServerResponse(status: rejection.status, headers: answerHeaders, body: Array(text.utf8))
            apns.logger.debug("broadcast request rejected", metadata: ["reason": "\(rejection.reason)", "path": "\(request.path)"])
        } else {
            for field in done.headers { answerHeaders.append(field.name, field.value) }
            if done.body != nil { answerHeaders.append("content-type", "application/json") }
            response = HTTPServerResponse(status: done.status, headers: answerHeaders, body: done.body.map { Array($0.utf8) })
        }
        let dropped = verdict.rejection == nil && judgement.payloadDrop != nil
        var outcome = PushOutcome(.broadcast, verdict.rejection != nil ? .rejected : (dropped ? .dropped : .accepted))
        outcome.environment = judgement.environment.rawValue
        outcome.bodyIsJSON = judgement.json.map { if case .object = $0 { true } else { false } } ?? false
        outcome.identity = verdict.identity
        outcome.pushType = judgement.route == .send ? "liveactivity" : nil
        outcome.topic = judgement.bundleID.isEmpty ? nil : judgement.bundleID
        outcome.deviceToken = judgement.channelHeader
        outcome.apnsID = verdict.requestID
        outcome.reason = verdict.rejection?.reason ?? judgement.payloadDrop?.reason
        outcome.explanation = verdict.explanation ?? judgement.payloadDrop?.explanation
        outcome.diagnostics = judgement.diagnostics + done.diagnostics
        if let created = done.headers.first(where: { $0.name == "apns-channel-id" }) {
            outcome.diagnostics.append("created channel \(created.value)")
        }
        outcome.fanOut = done.outcomes
        return (response, outcome)
    }

    /// What doing a request's action came to.
    private struct Done {
        var status = 200
        var body: String?
        var headers = HTTPHeaderList(capacity: 3)
        var outcomes: [LiveActivityDevice.Outcome] = []
        var diagnostics: [String] = []
    }

    /// Does what an accepted request asks: creates, reads or deletes a channel, lists them, or
    /// broadcasts to the activities that joined one.
    private func perform(_ action: Action, request: HTTPServerRequest, judgement: inout Judgement, now: PushInstant) -> Done {
        let (bundleID, environment) = (judgement.bundleID, judgement.environment)
        var done = Done()
        switch action {
        case .create(let policy):
            if let channel = channels.create(bundleID: bundleID, environment: environment, policy: policy, now: now) {
                done.status = 201
                done.headers.append("apns-channel-id", channel.id)
            } else {
                judgement.verdict.rejection = .cannotCreateChannelConfig
                judgement.verdict.explanation = "\(bundleID) has the maximum of channels in \(environment.rawValue); delete some"
            }
        case .read(let channel):
            done.body = #"{"message-storage-policy":\#(channel.messageStoragePolicy),"push-type":"LiveActivity"}"#
        case .delete(let channel):
            _ = channels.delete(id: channel.id, bundleID: bundleID, environment: environment)
            done.status = 204
        case .list:
            let ids = channels.list(bundleID: bundleID, environment: environment)
            done.body = "{\"channels\":[" + ids.map { "\"\($0)\"" }.joined(separator: ",") + "]}"
        case .send(let accepted):
            if accepted.drop == nil {
                done.outcomes = apns.activities.broadcast(
                    json: judgement.json, channelID: accepted.channel.id, bundleID: bundleID,
                    priority: Int(request.headers["apns-priority"] ?? "") ?? 10, now: now
                )
                let applied = done.outcomes.filter { $0.dropReason == nil }.count
                done.diagnostics.append(
                    "reached \(done.outcomes.count) subscribed activities: \(applied) applied, \(done.outcomes.count - applied) dropped")
            }
            if environment == .sandbox {
                done.headers.append("apns-unique-id", judgement.state.ids.nextUUIDString(lowercase: true), neverIndex: true)
            }
        }
        return done
    }

    private func lookUp(_ header: String?, bundleID: String, environment: APNSEnvironment) -> Result<BroadcastChannel, Problem> {
        guard let header, !header.isEmpty else { return .failure(Problem(.missingChannelID, "send the channel in apns-channel-id")) }
        guard BroadcastChannels.isWellFormedID(header) else {
            return .failure(Problem(.badChannelID, "apns-channel-id must be the base64 id APNs returned"))
        }
        guard let channel = channels.channel(id: header, bundleID: bundleID, environment: environment) else {
            return .failure(Problem(.channelNotRegistered, "no channel \(header) for \(bundleID) in \(environment.rawValue)"))
        }
        return .success(channel)
    }

    /// Why a broadcast request is refused.
    struct Problem: Error {
        let reason: APNSRejectionReason
        let explanation: String?
        var rule: LiveActivityRule?
        init(_ reason: APNSRejectionReason, _ explanation: String?, _ rule: LiveActivityRule? = nil) {
            self.reason = reason
            self.explanation = explanation
            self.rule = rule
        }
    }

    /// The body of a channel creation: `{"message-storage-policy": 0|1, "push-type": "LiveActivity"}`.
    static func channelConfig(_ json: JSONValue?) -> Result<Int, Problem> {
        guard let json, case .object(let members) = json else {
            return .failure(Problem(.badRequestPayload, "the body must be a JSON object"))
        }
        for (key, _) in members where key != "message-storage-policy" && key != "push-type" {
            return .failure(Problem(.badRequestParams, "unknown attribute \(key)"))
        }
        guard case .number(let text)? = json["message-storage-policy"], let policy = Int(text), policy == 0 || policy == 1 else {
            return .failure(
                Problem(.missingChannelQueueSize, "message-storage-policy must be 0 (no message stored) or 1 (most recent message stored)"))
        }
        guard case .string(let type)? = json["push-type"] else { return .failure(Problem(.missingPushType, "push-type must be LiveActivity")) }
        guard type.lowercased() == "liveactivity" else { return .failure(Problem(.invalidPushType, "push-type must be LiveActivity")) }
        return .success(policy)
    }

    struct Accepted {
        let channel: BroadcastChannel
        let drop: LiveActivityRule?
        let diagnostics: [String]
    }

    /// Headers, body and Live Activity rules of `POST /4/broadcasts/apps/<bundleId>`.
    private func checkSend(
        _ request: HTTPServerRequest, json: JSONValue?, channelHeader: String?, bundleID: String, environment: APNSEnvironment, now: PushInstant
    ) -> Result<Accepted, Problem> {
        func fail(_ reason: APNSRejectionReason, _ explanation: String, _ rule: LiveActivityRule? = nil) -> Result<Accepted, Problem> {
            .failure(Problem(reason, explanation, rule))
        }
        let channel: BroadcastChannel
        switch lookUp(channelHeader, bundleID: bundleID, environment: environment) {
        case .failure(let problem): return .failure(problem)
        case .success(let found): channel = found
        }
        guard let pushType = request.headers["apns-push-type"] else { return fail(.missingPushType, "apns-push-type: liveactivity is required") }
        guard pushType.lowercased() == "liveactivity" else {
            return fail(.invalidPushType, "broadcasts carry Live Activity updates: apns-push-type liveactivity")
        }
        guard let priority = request.headers["apns-priority"], ["1", "5", "10"].contains(priority) else {
            return fail(.badPriority, "apns-priority is required: 1, 5 or 10")
        }
        guard let expirationText = request.headers["apns-expiration"], let expiration = Int64(expirationText), expiration >= 0 else {
            return fail(.badExpirationDate, "apns-expiration is required (seconds since 1970, or 0)")
        }
        if channel.messageStoragePolicy == 0, expiration != 0 {
            return fail(.badExpirationDate, "a No Message Stored channel (policy 0) takes apns-expiration: 0")
        }
        if request.limitExceeded != nil || request.body.count > Self.maxPayload {
            return fail(.payloadTooLarge, "broadcast payloads are at most \(Self.maxPayload) bytes")
        }
        guard !request.body.isEmpty else { return fail(.payloadEmpty, "the body is empty") }
        guard let json, case .object = json else { return fail(.badRequestPayload, "the body must be a JSON object") }
        var drop: LiveActivityRule?
        var diagnostics: [String] = []
        let options = apns.validator.options.liveActivity
        var rule: LiveActivityRule?
        if case .string("start")? = json["aps"]?["event"] {
            rule = .broadcastCannotStart
        } else {
            let finding = LiveActivityPayloadRules.check(payload: json, now: now, options: options)
            diagnostics = finding.diagnostics
            rule = finding.violation
        }
        diagnostics.append("live activity profile: \(options.profile.rawValue)")
        if let rule {
            switch options.profile {
            case .strict: return fail(APNSRejectionReason(rule.reason, status: rule.status), rule.explanation, rule)
            case .apple: drop = rule
            }
        }
        return .success(Accepted(channel: channel, drop: drop, diagnostics: diagnostics))
    }
}
