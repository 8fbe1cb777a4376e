import PushMockCore
import PushMockInspection
import PushMockTransport

/// `POST /api/v1/check` (`check_payload` over MCP): a push-port request judged by the endpoint's own
/// validators and the simulated device's current state, on a new connection, without the parts that
/// change anything: it is not recorded, no fault fires, no Live Activity moves, no access token is
/// needed.
extension ServerState {
    func check(_ request: OutgoingRequest, environment: APNSEnvironment?) async throws -> PushCheck {
        let now = configuration.clock.now
        if let project = FCMEndpoint.project(in: request.path) {
            return fcm.check(request, project: project, now: now)
        }
        if let (service, id) = WebPushSubscriptions.endpoint(inPath: request.path) {
            return webPush.check(request, target: WebPushEndpoint.Target(service: service, id: String(id)), now: now)
        }
        guard request.path.hasPrefix("/3/device/") else {
            throw InspectionError.badRequest(
                "only APNs pushes (/3/device/<token>), FCM messages (/v1/projects/<project>/messages:send) and Web Push messages (a subscription's endpoint) can be checked; got \(request.path)"
            )
        }
        return apns.check(request, environment: environment, now: now)
    }
}

extension APNSEndpoint {
    /// `request` as a provider-token connection's first push would be judged (the caller signs it).
    func check(_ request: OutgoingRequest, environment: APNSEnvironment?, now: PushInstant) -> PushCheck {
        let environment = environment ?? defaultEnvironment
        let apnsRequest = APNSRequest(
            method: request.method, path: request.path, headers: request.headers, body: request.body, environment: environment)
        var auth = APNSConnectionAuth()
        var ids = IDGenerator()
        var verdict = APNSVerdict()
        validator.validate(apnsRequest, credential: .token, auth: &auth, now: now, ids: &ids, into: &verdict)
        let rejection = verdict.rejection.map { (status: $0.status, reason: $0.reason) }
        let response = answer(verdict, rejection: rejection, environment: environment, now: now, ids: &ids)
        let device = self.device(for: verdict, rejected: rejection != nil, environment: environment, now: now, preview: true)
        let outcome = self.outcome(of: verdict, rejection: rejection, environment: environment, device: device, fault: nil)
        return PushCheck(status: response.status, body: response.body ?? [], delivery: outcome.checked(request, at: now, status: response.status))
    }
}

extension FCMEndpoint {
    /// `request` for `project` as FCM would judge it coming with a valid access token of one of the
    /// server's service accounts (a project none of them belongs to is refused as a token would be).
    func check(_ request: OutgoingRequest, project: String, now: PushInstant) -> PushCheck {
        var result = FCMSendResult()
        var validated = false
        let status: Int
        let body: [UInt8]
        var rejection: (reason: String, message: String?)?
        do throws(GoogleError) {
            if !accounts.isEmpty, !accounts.contains(where: { $0.projectID == project }) {
                throw Self.permissionDenied(project: project)
            }
            guard request.method == "POST" else {
                throw GoogleError(code: 404, message: "Method not found.", status: "NOT_FOUND")
            }
            result = try validator.validate(request.body, now: now, scratch: FCMMessageValidator.Scratch())
            validated = true
            try checkRegistration(of: result, project: project, now: now)
            status = 200
            body = successBody(project: project, toToken: result.isSentToToken, validateOnly: true, now: now, connection: nil)
        } catch {
            status = error.code
            body = Array(error.json.utf8)
            rejection = (error.recordedReason, error.message)
        }
        let accepted = rejection == nil
        let described = describe(result, project: project, delivered: accepted && validated)
        var device: LiveActivityDevice.Outcome?
        if accepted, validated, !result.validateOnly, let token = result.liveActivityToken {
            device = activities.preview(
                result.liveActivityPush, token: token, bundleID: result.apnsTopic.map(APNSEndpoint.bundleID(ofTopic:)), service: .fcm, now: now,
                payloadDrop: result.liveActivityDrop)
        }
        let outcome = self.outcome(of: result, described, rejection: rejection, validated: validated, identity: nil, project: project, device: device)
        return PushCheck(status: status, body: body, delivery: outcome.checked(request, at: now, status: status))
    }
}

extension WebPushEndpoint {
    /// `request` to the subscription `target` as the push service would judge it, and its payload
    /// opened as the browser would.
    func check(_ request: OutgoingRequest, target: Target, now: PushInstant) -> PushCheck {
        let incoming = HTTPServerRequest(
            method: request.method, authority: request.authority ?? "localhost", path: request.path, headers: HTTPHeaderList(request.headers),
            body: request.body)
        let context = RequestContext(connection: ConnectionInfo(id: 0, httpVersion: .http2, isTLS: true), control: .none)
        var judgement = judge(incoming, target: target, context: context, now: now)
        let (response, outcome) = answer(&judgement, fault: nil, request: incoming, context: context, now: now)
        return PushCheck(status: response.status, body: response.body ?? [], delivery: outcome.checked(request, at: now, status: response.status))
    }
}

extension PushOutcome {
    /// The delivery a checked request would have been recorded as (id 0, connection 0).
    func checked(_ request: OutgoingRequest, at now: PushInstant, status: Int) -> Delivery {
        var checked = self
        checked.fill(
            method: request.method, path: request.path, headers: request.headers, body: request.body, at: now, status: status, fault: nil,
            connectionID: 0, httpVersion: "HTTP/2")
        return checked.recorded
    }
}
