import PushMockCore

/// `/api/v1/web-push/subscriptions[/{id}[/expire]]`: mint Web Push subscriptions, list, read,
/// expire and remove them. A minted subscription's endpoint is on the push port, in its service's
/// path shape; PushMock keeps its private key and auth secret, so it opens what is sent to it.
extension InspectionRouter {
    /// The origin endpoints are minted at: the real service's host where clients reach the push
    /// port by it (transparent mode, the CONNECT proxy), else the push port by the name its
    /// certificate carries.
    var webPushOrigin: @Sendable (WebPushSubscription.Service) -> String {
        let (real, port) = (settings.pushAddress.realHosts, settings.pushAddress.port)
        return { service in real ? service.realOrigin : "https://localhost:\(port)" }
    }

    func listWebPushSubscriptions() -> InspectionAnswer {
        .response(.json(200, WebPushSubscriptionList(subscriptions: webPush.all().map { WebPushSubscriptionResource($0, origin: webPushOrigin) })))
    }

    /// `{"service": "apple" | "mozilla" | "google", "applicationServerKey": "<base64url>"?}`.
    func createWebPushSubscription(_ call: InspectionCall) throws -> InspectionAnswer {
        let json = try ControlBody.json(call.request.body.isEmpty ? Array("{}".utf8) : call.request.body)
        guard case .object(let members) = json else { throw InspectionError.badRequest("the body is a JSON object: {\"service\": \"mozilla\"}") }
        let known = ["service", "applicationServerKey"]
        if let unknown = members.first(where: { !known.contains($0.key) }) {
            throw InspectionError.badRequest("unknown member \(unknown.key): a subscription takes service and applicationServerKey")
        }
        let services = WebPushSubscription.Service.allCases.map(\.rawValue).joined(separator: ", ")
        guard case .string(let name)? = json["service"], let service = WebPushSubscription.Service(rawValue: name) else {
            throw InspectionError.badRequest("service is one of \(services)")
        }
        var key: [UInt8]?
        if let value = json["applicationServerKey"] {
            guard case .string(let text) = value, let bytes = Base64URL.decode(Substring(text)), bytes.count == 65, bytes.first == 4 else {
                throw InspectionError.badRequest(
                    "applicationServerKey is the VAPID public key as PushManager.subscribe() takes it: an uncompressed P-256 point (65 bytes), base64url"
                )
            }
            key = bytes
        }
        let subscription = webPush.create(service: service, applicationServerKey: key, now: nowMilliseconds())
        return .response(.json(201, WebPushSubscriptionResource(subscription, origin: webPushOrigin)))
    }

    func webPushSubscription(_ call: InspectionCall) throws -> InspectionAnswer {
        let id = call.parameter("id")
        guard let subscription = webPush.subscription(id) else { throw InspectionError.notFound("no Web Push subscription \(id)") }
        return .response(.json(200, WebPushSubscriptionResource(subscription, origin: webPushOrigin)))
    }

    func expireWebPushSubscription(_ call: InspectionCall) throws -> InspectionAnswer {
        let id = call.parameter("id")
        guard let subscription = webPush.expire(id) else { throw InspectionError.notFound("no Web Push subscription \(id)") }
        return .response(.json(200, WebPushSubscriptionResource(subscription, origin: webPushOrigin)))
    }

    func removeWebPushSubscription(_ call: InspectionCall) throws -> InspectionAnswer {
        let id = call.parameter("id")
        guard webPush.remove(id) else { throw InspectionError.notFound("no Web Push subscription \(id)") }
        return .response(.json(200, RemovedCount(removed: 1)))
    }
}
