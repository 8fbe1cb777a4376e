import PushMockCore

/// A minted Web Push subscription (`/api/v1/web-push/subscriptions`): what a browser's
/// `PushSubscription.toJSON()` gives (`endpoint`, `expirationTime`, `keys`), which a test hands to
/// the code under test as it would a real browser's, and PushMock's own facts about it.
public struct WebPushSubscriptionResource: Codable, Sendable {
    /// `p256dh` and `auth`, base64url.
    public struct Keys: Codable, Sendable {
        public var p256dh: String
        public var auth: String
    }

    public var id: String
    /// `apple`, `mozilla` or `google`.
    public var service: String
    public var endpoint: String
    /// Always null, as browsers give it.
    @Nullable public var expirationTime: Int64?
    public var keys: Keys
    /// `active` or `expired`.
    public var state: String
    /// The application server key it was made with, base64url, or null.
    @Nullable public var applicationServerKey: String?
    /// Milliseconds since 1970.
    public var createdAt: Int64

    init(_ subscription: WebPushSubscription, origin: (WebPushSubscription.Service) -> String) {
        id = subscription.id
        service = subscription.service.rawValue
        endpoint = origin(subscription.service) + subscription.path
        keys = Keys(p256dh: subscription.keys.p256dh, auth: subscription.keys.auth)
        state = subscription.state.rawValue
        applicationServerKey = subscription.applicationServerKey.map { Base64URL.encode($0) }
        createdAt = subscription.createdAt
    }
}

/// `{"subscriptions": […]}`.
public struct WebPushSubscriptionList: Codable, Sendable {
    public var subscriptions: [WebPushSubscriptionResource]
}
