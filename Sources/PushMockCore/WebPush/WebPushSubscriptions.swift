import Synchronization

/// A Web Push subscription PushMock minted, as a browser's `PushSubscription` would hold it:
/// its endpoint's path in the real service's shape, and the keys to open what is sent to it.
public struct WebPushSubscription: Sendable {
    /// The push service whose endpoints and answers the subscription takes.
    public enum Service: String, Sendable, Hashable, CaseIterable {
        /// Safari's, `web.push.apple.com/<id>`: APNs' `{"reason": …}` answers.
        case apple
        /// Firefox's autopush, `updates.push.services.mozilla.com/wpush/v2/<id>`.
        case mozilla
        /// Chrome's, FCM's `fcm.googleapis.com/fcm/send/<id>`.
        case google

        /// The real service's origin (`https://web.push.apple.com`, …).
        public var realOrigin: String {
            switch self {
            case .apple: "https://web.push.apple.com"
            case .mozilla: "https://updates.push.services.mozilla.com"
            case .google: "https://fcm.googleapis.com"
            }
        }
    }

    /// Whether pushes still reach it (`expired`: the browser unsubscribed, or the service dropped it).
    public enum State: String, Sendable, Hashable {
        case active
        case expired
    }

    /// The endpoint's last path segment.
    public let id: String
    public let service: Service
    public let keys: WebPushKeys
    /// The application server key (`applicationServerKey`) it was made with, if one was given:
    /// pushes must be signed with its private half.
    public let applicationServerKey: [UInt8]?
    public internal(set) var state: State
    /// Milliseconds since 1970.
    public let createdAt: Int64

    /// A subscription as it was minted (restored from a store).
    public init(
        id: String, service: Service, keys: WebPushKeys, applicationServerKey: [UInt8]?, state: State, createdAt: Int64
    ) {
        self.id = id
        self.service = service
        self.keys = keys
        self.applicationServerKey = applicationServerKey
        self.state = state
        self.createdAt = createdAt
    }

    /// The endpoint's path, as the service shapes it (Mozilla's `v1` is a subscription made
    /// without an application server key).
    public var path: String {
        switch service {
        case .apple: "/\(id)"
        case .mozilla: applicationServerKey == nil ? "/wpush/v1/\(id)" : "/wpush/v2/\(id)"
        case .google: "/fcm/send/\(id)"
        }
    }
}

/// The Web Push subscriptions PushMock minted, by id. Thread-safe.
public final class WebPushSubscriptions: Sendable {
    private let subscriptions = Mutex<[String: WebPushSubscription]>([:])
    private let changed: (@Sendable (_ id: String, _ now: WebPushSubscription?) -> Void)?

    /// An empty registry; `changed` is told each subscription minted, expired or removed (nil:
    /// removed), under the lock, so in the order of the changes (a store saves them).
    public init(changed: (@Sendable (_ id: String, _ now: WebPushSubscription?) -> Void)? = nil) {
        self.changed = changed
    }

    /// A subscription as a store kept it, or nil to forget `id` (a restart, another instance of
    /// a fleet); `changed` is not told.
    public func apply(id: String, _ subscription: WebPushSubscription?) {
        subscriptions.withLock { $0[id] = subscription }
    }

    /// Mints a subscription for `service`, made with `applicationServerKey` (65 bytes) if given.
    /// `createdAt` is `now`, or a millisecond after the newest subscription's when that is not
    /// earlier: the order they were minted in is their order by `createdAt`, also once a store
    /// restores them.
    public func create(service: WebPushSubscription.Service, applicationServerKey: [UInt8]?, now: Int64) -> WebPushSubscription {
        let (id, keys) = (Self.newID(for: service), WebPushKeys())
        return subscriptions.withLock { all in
            let newest = all.values.map(\.createdAt).max()
            let subscription = WebPushSubscription(
                id: id, service: service, keys: keys, applicationServerKey: applicationServerKey, state: .active,
                createdAt: newest.map { max(now, $0 + 1) } ?? now)
            all[id] = subscription
            changed?(id, subscription)
            return subscription
        }
    }

    /// The subscription `id`, if PushMock minted it and it was not removed.
    public func subscription(_ id: String) -> WebPushSubscription? {
        subscriptions.withLock { $0[id] }
    }

    /// Every subscription, oldest first (``create(service:applicationServerKey:now:)`` keeps
    /// `createdAt` distinct; the id orders what a fleet's instances minted in one millisecond).
    public func all() -> [WebPushSubscription] {
        subscriptions.withLock { Array($0.values) }.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    /// Marks `id` expired (pushes to it get the service's 410); nil when there is no such subscription.
    public func expire(_ id: String) -> WebPushSubscription? {
        subscriptions.withLock { all in
            all[id]?.state = .expired
            if let expired = all[id] { changed?(id, expired) }
            return all[id]
        }
    }

    /// Forgets `id`; false when there was no such subscription.
    public func remove(_ id: String) -> Bool {
        subscriptions.withLock {
            guard $0.removeValue(forKey: id) != nil else { return false }
            changed?(id, nil)
            return true
        }
    }

    /// Forgets every subscription.
    public func removeAll() {
        subscriptions.withLock { all in
            for id in all.keys { changed?(id, nil) }
            all.removeAll()
        }
    }

    /// The service and id a push endpoint's path names, or nil when it is no Web Push path:
    /// `/wpush/v1|v2/<id>` (Mozilla), `/fcm/send/<id>` (Google), `/<id>` of 40 or more base64url
    /// characters (Apple).
    public static func endpoint(inPath path: String) -> (service: WebPushSubscription.Service, id: Substring)? {
        let route = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
        for (prefix, service) in [("/wpush/v2/", WebPushSubscription.Service.mozilla), ("/wpush/v1/", .mozilla), ("/fcm/send/", .google)] {
            if route.hasPrefix(prefix) {
                let id = route.dropFirst(prefix.count)
                return id.isEmpty || id.contains("/") ? nil : (service, id)
            }
        }
        let id = route.dropFirst()
        guard route.first == "/", id.utf8.count >= 40, id.utf8.allSatisfy(Self.isBase64URL) else { return nil }
        return (.apple, id)
    }

    /// Whether `byte` is in the base64url alphabet (RFC 4648 section 5).
    public static func isBase64URL(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "-"), UInt8(ascii: "_"): true
        default: false
        }
    }

    /// An id in the shape the service mints: Apple's and Mozilla's long base64url tokens, Google's
    /// `<instance>:APA91b…` registration tokens.
    static func newID(for service: WebPushSubscription.Service) -> String {
        var generator = SystemRandomNumberGenerator()
        let random = { (count: Int) in Base64URL.encode((0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }) }
        switch service {
        case .apple: return "Q" + random(48)
        case .mozilla: return "gAAAAAB" + random(96)
        case .google: return random(8) + ":APA91b" + random(96)
        }
    }
}
