import Foundation
import Logging
import PushMockCore
import PushMockTransport

/// iOS 18 broadcast (apns.md §10): channel management under `/1/apps/<bundleId>/…` and broadcast
/// sends to `/4/broadcasts/apps/<bundleId>`, on the push port, with the APNs connection's auth.
/// A broadcast reaches every simulated activity that joined the channel (`input-push-channel`).
struct BroadcastEndpoint: Sendable {
    let apns: APNSEndpoint
    let channels: BroadcastChannelStore
    /// Broadcast payloads may be this large (apns.md §9).
    static let maxPayload = 5120

    func respond(to request: HTTPServerRequest, context: RequestContext, claims: FaultClaims? = nil) -> ResponderResult {
        let now = apns.clock.now
        let state = apns.state(for: context)
        let environment = apns.environment(for: request, connection: context.connection)
        let path = request.path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? request.path
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        // ["1","apps",bundle,"channels"|"all-channels"] or ["4","broadcasts","apps",bundle]
        enum Route { case channels, allChannels, send }
        var route: Route?
        var bundleID = ""
        if segments.count == 4, segments[0] == "1", segments[1] == "apps", ["channels", "all-channels"].contains(segments[3]) {
            route = segments[3] == "channels" ? .channels : .allChannels
            bundleID = segments[2]
        } else if segments.count == 4, segments[0] == "4", segments[1] == "broadcasts", segments[2] == "apps" {
            route = .send
            bundleID = segments[3]
        }
        let headers = request.headers.fields
        // Parsed once for the channel config, the send checks, the fan-out and the recording.
        let json = request.body.isEmpty ? nil : JSONValue.parse(request.body)
        var verdict = apns.validator.authorizeBroadcast(
            headers: headers, bundleID: bundleID, environment: environment, credential: state.credential, auth: &state.auth,
            now: now, ids: &state.ids
        )
        if verdict.authenticated, !state.raised {
            state.raised = true
            context.control.setMaxConcurrentStreams(apns.raisedStreamLimit)
        }
        var status = 200
        var body: String?
        var responseHeaders = HTTPHeaderList(capacity: 3)
        var outcomes: [LiveActivityDevice.Outcome] = []
        var payloadDrop: LiveActivityRule?
        var diagnostics: [String] = []
        let channelHeader = request.headers["apns-channel-id"]
        func reject(_ reason: APNSRejectionReason, _ explanation: String? = nil) {
            verdict.rejection = reason
            verdict.explanation = explanation
        }
        switch route {
        case nil:
            reject(.badPath, "broadcast paths are /1/apps/<bundleId>/channels, /1/apps/<bundleId>/all-channels and /4/broadcasts/apps/<bundleId>")
        case .channels?:
            if verdict.rejection == nil {
                switch request.method {
                case "POST":
                    switch request.body.isEmpty
                        ? .failure(
                            Problem(.payloadEmpty, "the body is empty; send {\"message-storage-policy\": 0|1, \"push-type\": \"LiveActivity\"}"))
                        : Self.channelConfig(json)
                    {
                    case .failure(let problem): reject(problem.reason, problem.explanation)
                    case .success(let policy):
                        if let channel = channels.create(bundleID: bundleID, environment: environment, policy: policy, now: now) {
                            status = 201
                            responseHeaders.append("apns-channel-id", channel.id)
                        } else {
                            reject(.cannotCreateChannelConfig, "\(bundleID) has the maximum of channels in \(environment.rawValue); delete some")
                        }
                    }
                case "GET", "DELETE":
                    switch lookUp(channelHeader, bundleID: bundleID, environment: environment) {
                    case .failure(let problem): reject(problem.reason, problem.explanation)
                    case .success(let channel):
                        if request.method == "GET" {
                            body = #"{"message-storage-policy":\#(channel.messageStoragePolicy),"push-type":"LiveActivity"}"#
                        } else {
                            _ = channels.delete(id: channel.id, bundleID: bundleID, environment: environment)
                            status = 204
                        }
                    }
                default:
                    reject(.methodNotAllowed)
                }
            }
        case .allChannels?:
            if verdict.rejection == nil {
                if request.method == "GET" {
                    let ids = channels.list(bundleID: bundleID, environment: environment)
                    body = "{\"channels\":[" + ids.map { "\"\($0)\"" }.joined(separator: ",") + "]}"
                } else {
                    reject(.methodNotAllowed)
                }
            }
        case .send?:
            if verdict.rejection == nil {
                if request.method != "POST" {
                    reject(.methodNotAllowed)
                } else {
                    switch checkSend(request, json: json, channelHeader: channelHeader, bundleID: bundleID, environment: environment, now: now) {
                    case .failure(let problem):
                        reject(problem.reason, problem.explanation)
                        payloadDrop = problem.rule
                    case .success(let result):
                        payloadDrop = result.drop
                        diagnostics = result.diagnostics
                        if result.drop == nil {
                            outcomes = apns.activities.broadcast(
                                json: json, channelID: result.channel.id, bundleID: bundleID,
                                priority: Int(request.headers["apns-priority"] ?? "") ?? 10, now: now
                            )
                            let applied = outcomes.filter { $0.dropReason == nil }.count
                            diagnostics.append(
                                "reached \(outcomes.count) subscribed activities: \(applied) applied, \(outcomes.count - applied) dropped")
                        }
                        if environment == .sandbox {
                            responseHeaders.append("apns-unique-id", state.ids.nextUUIDString(lowercase: true), neverIndex: true)
                        }
                    }
                }
            }
        }
        let fault = apns.recorder.fault(.broadcast, path: request.path, token: channelHeader, topic: bundleID, claims: claims)
        if let fault, case .reject(let faultStatus, let reason, _) = fault.action {
            verdict.rejection = APNSRejectionReason(reason, status: faultStatus)
            verdict.explanation = "fault \(fault.id)"
        }
        var answerHeaders = HTTPHeaderList(capacity: 4)
        answerHeaders.append("apns-request-id", verdict.requestID, neverIndex: true)
        let response: HTTPServerResponse
        if let rejection = verdict.rejection {
            answerHeaders.append("content-type", "application/json")
            let text: String
            if let payloadDrop, payloadDrop.reason == rejection.reason {
                text = #"{"reason":"\#(rejection.reason)","description":"\#(JSONText.escape(payloadDrop.explanation))"}"#
            } else {
                text = #"{"reason":"\#(JSONText.escape(rejection.reason))"}"#
            }
            response = HTTPServerResponse(status: rejection.status, headers: answerHeaders, body: Array(text.utf8))
            apns.logger.debug("broadcast request rejected", metadata: ["reason": "\(rejection.reason)", "path": "\(request.path)"])
        } else {
            for field in responseHeaders { answerHeaders.append(field.name, field.value) }
            if body != nil { answerHeaders.append("content-type", "application/json") }
            response = HTTPServerResponse(status: status, headers: answerHeaders, body: body.map { Array($0.utf8) })
        }
        let dropped = verdict.rejection == nil && payloadDrop != nil
        var outcome = PushOutcome(.broadcast, verdict.rejection != nil ? .rejected : (dropped ? .dropped : .accepted))
        outcome.environment = environment.rawValue
        outcome.bodyIsJSON = json.map { if case .object = $0 { true } else { false } } ?? false
        outcome.identity = verdict.identity
        outcome.pushType = route == .send ? "liveactivity" : nil
        outcome.topic = bundleID.isEmpty ? nil : bundleID
        outcome.deviceToken = channelHeader
        outcome.apnsID = verdict.requestID
        outcome.reason = verdict.rejection?.reason ?? payloadDrop?.reason
        outcome.explanation = verdict.explanation ?? payloadDrop?.explanation
        outcome.diagnostics = diagnostics
        if let created = responseHeaders.first(where: { $0.name == "apns-channel-id" }) {
            outcome.diagnostics.append("created channel \(created.value)")
        }
        outcome.fanOut = outcomes
        return apns.recorder.record(outcome, of: request, at: now, response: response, fault: fault, context: context)
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
        let explanation: String
        var rule: LiveActivityRule?
        init(_ reason: APNSRejectionReason, _ explanation: String, _ rule: LiveActivityRule? = nil) {
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
