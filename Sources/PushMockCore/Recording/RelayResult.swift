/// What an upstream (Apple's APNs, Google's FCM, or another compatible server) answered to a
/// push PushMock forwarded, kept with the delivery; and whether that answer agrees with the
/// verdict PushMock gave the same request.
public struct RelayResult: Sendable, Hashable, Codable {
    /// The upstream's base URL, as configured (`https://api.sandbox.push.apple.com`).
    public var upstream: String
    /// The upstream's HTTP status; nil when no answer came (see `error`).
    public var status: Int?
    /// The upstream's reason: APNs' `reason`, or Google's FcmError code, ErrorInfo reason or
    /// status (as PushMock records its own); nil on success.
    public var reason: String?
    /// The upstream's `apns-id`, or the FCM message `name`.
    public var upstreamId: String?
    /// Milliseconds from the first attempt to the last answer.
    public var latencyMilliseconds: Int?
    /// Why there is no answer: a transport error, "queue full", a missing credential.
    public var error: String?
    /// How many times the push was sent (429 and 5xx are retried with backoff, 4xx never).
    public var attempts: Int
    /// Whether the upstream's status class and reason are PushMock's; nil without an answer.
    public var agrees: Bool?

    public init(
        upstream: String, status: Int? = nil, reason: String? = nil, upstreamId: String? = nil, latencyMilliseconds: Int? = nil,
        error: String? = nil, attempts: Int = 0, agrees: Bool? = nil
    ) {
        self.upstream = upstream
        self.status = status
        self.reason = reason
        self.upstreamId = upstreamId
        self.latencyMilliseconds = latencyMilliseconds
        self.error = error
        self.attempts = attempts
        self.agrees = agrees
    }

    /// Whether an upstream answer of `status` and `reason` agrees with PushMock's `ownStatus` and
    /// `ownReason`: the same status class (2xx, 4xx, 5xx) and the same reason (none on success).
    /// A push PushMock accepted but a device would drop is a 200 as the service sees it.
    public static func agrees(status: Int, reason: String?, ownStatus: Int, ownReason: String?, ownOutcome: Delivery.Outcome) -> Bool {
        guard status / 100 == ownStatus / 100 else { return false }
        if status / 100 == 2 { return true }
        return reason == (ownOutcome == .dropped ? nil : ownReason)
    }

    /// The most characters kept of each text an upstream sends (a reason, an id, an error):
    /// the real services' are a few dozen; an upstream that sends more cannot fill memory.
    public static let maximumTextLength = 256

    /// `text` as kept: past ``maximumTextLength`` characters, its start and how long it was.
    public static func capped(_ text: String?) -> String? {
        guard let text, text.utf8.count > maximumTextLength else { return text }
        return String(text.prefix(maximumTextLength)) + "… (\(text.utf8.count) bytes; PushMock keeps the first \(maximumTextLength) characters)"
    }

    /// The reason in an APNs error body (`{"reason":"BadDeviceToken"}`).
    public static func apnsReason(body: [UInt8]) -> String? {
        guard case .string(let reason)? = JSONValue.parse(body)?["reason"] else { return nil }
        return capped(reason)
    }

    /// The reason in a Google error envelope, read as PushMock records its own: the FcmError
    /// code, else the ErrorInfo reason, else the status.
    public static func googleReason(body: [UInt8]) -> String? {
        guard let error = JSONValue.parse(body)?["error"] else { return nil }
        if case .array(let details)? = error["details"] {
            for detail in details {
                if case .string(let type)? = detail["@type"], type.hasSuffix("google.firebase.fcm.v1.FcmError"),
                    case .string(let code)? = detail["errorCode"]
                {
                    return capped(code)
                }
            }
            for detail in details {
                if case .string(let type)? = detail["@type"], type.hasSuffix("google.rpc.ErrorInfo"), case .string(let reason)? = detail["reason"] {
                    return capped(reason)
                }
            }
        }
        if case .string(let status)? = error["status"] { return capped(status) }
        return nil
    }

    /// The FCM message `name` of a success body.
    public static func messageName(body: [UInt8]) -> String? {
        guard case .string(let name)? = JSONValue.parse(body)?["name"] else { return nil }
        return capped(name)
    }
}
