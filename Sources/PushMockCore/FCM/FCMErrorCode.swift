/// An FCM `errorCode` (the `FcmError` detail) with its HTTP status and canonical status.
public struct FCMErrorCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String
    /// The HTTP status FCM answers with.
    public let httpStatus: Int
    /// The canonical status name.
    public let status: String
    /// FCM's message for it when nothing more specific is known.
    public let defaultMessage: String

    public init?(rawValue: String) {
        guard let known = Self.all.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = known
    }

    init(_ rawValue: String, _ httpStatus: Int, _ status: String, _ message: String) {
        self.rawValue = rawValue
        self.httpStatus = httpStatus
        self.status = status
        self.defaultMessage = message
    }

    public var description: String { rawValue }

    public static let invalidArgument = FCMErrorCode("INVALID_ARGUMENT", 400, "INVALID_ARGUMENT", "Request contains an invalid argument.")
    public static let unregistered = FCMErrorCode("UNREGISTERED", 404, "NOT_FOUND", "Requested entity was not found.")
    public static let senderIDMismatch = FCMErrorCode("SENDER_ID_MISMATCH", 403, "PERMISSION_DENIED", "SenderId mismatch")
    public static let quotaExceeded = FCMErrorCode(
        "QUOTA_EXCEEDED", 429, "RESOURCE_EXHAUSTED", "Quota exceeded for quota metric 'Send requests' and limit 'Send requests per minute'.")
    public static let unavailable = FCMErrorCode("UNAVAILABLE", 503, "UNAVAILABLE", "The service is currently unavailable.")
    public static let `internal` = FCMErrorCode("INTERNAL", 500, "INTERNAL", "Internal error encountered.")
    public static let thirdPartyAuthError = FCMErrorCode("THIRD_PARTY_AUTH_ERROR", 401, "UNAUTHENTICATED", "Auth error from APNS or Web Push Service")

    /// Every code PushMock can answer with.
    public static let all: [FCMErrorCode] = [
        .invalidArgument, .unregistered, .senderIDMismatch, .quotaExceeded, .unavailable, .internal, .thirdPartyAuthError,
    ]
}
