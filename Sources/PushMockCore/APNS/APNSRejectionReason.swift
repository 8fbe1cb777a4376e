/// An APNs error `reason` with its HTTP status, in one place (as Pushy's `RejectionReason` pairs
/// them). Extensible: PushMock's own Live Activity rule reasons are values of the same type.
public struct APNSRejectionReason: Sendable, Hashable, CustomStringConvertible {
    /// The wire string of the `reason` field.
    public let reason: String
    /// The HTTP status code.
    public let status: Int

    /// Creates a reason.
    public init(_ reason: String, status: Int) {
        self.reason = reason
        self.status = status
    }

    public var description: String { "\(status) \(reason)" }

    public static let badCollapseID = APNSRejectionReason("BadCollapseId", status: 400)
    public static let badDeviceToken = APNSRejectionReason("BadDeviceToken", status: 400)
    public static let badExpirationDate = APNSRejectionReason("BadExpirationDate", status: 400)
    public static let badMessageID = APNSRejectionReason("BadMessageId", status: 400)
    public static let badPriority = APNSRejectionReason("BadPriority", status: 400)
    public static let badTopic = APNSRejectionReason("BadTopic", status: 400)
    public static let deviceTokenNotForTopic = APNSRejectionReason("DeviceTokenNotForTopic", status: 400)
    public static let duplicateHeaders = APNSRejectionReason("DuplicateHeaders", status: 400)
    public static let idleTimeout = APNSRejectionReason("IdleTimeout", status: 400)
    public static let invalidPushType = APNSRejectionReason("InvalidPushType", status: 400)
    public static let missingDeviceToken = APNSRejectionReason("MissingDeviceToken", status: 400)
    public static let missingTopic = APNSRejectionReason("MissingTopic", status: 400)
    public static let payloadEmpty = APNSRejectionReason("PayloadEmpty", status: 400)
    public static let topicDisallowed = APNSRejectionReason("TopicDisallowed", status: 400)
    /// PushMock's choice for a body that is not a JSON object (reference §14: undocumented).
    public static let badPayload = APNSRejectionReason("BadPayload", status: 400)
    public static let badCertificate = APNSRejectionReason("BadCertificate", status: 403)
    public static let badCertificateEnvironment = APNSRejectionReason("BadCertificateEnvironment", status: 403)
    public static let expiredProviderToken = APNSRejectionReason("ExpiredProviderToken", status: 403)
    public static let forbidden = APNSRejectionReason("Forbidden", status: 403)
    public static let invalidProviderToken = APNSRejectionReason("InvalidProviderToken", status: 403)
    public static let missingProviderToken = APNSRejectionReason("MissingProviderToken", status: 403)
    public static let unrelatedKeyIDInToken = APNSRejectionReason("UnrelatedKeyIdInToken", status: 403)
    /// The wire spelling (Apple's docs write `BadEnvironmentKeyIdInToken`; reference §13).
    public static let badEnvironmentKeyInToken = APNSRejectionReason("BadEnvironmentKeyInToken", status: 403)
    public static let badPath = APNSRejectionReason("BadPath", status: 404)
    public static let methodNotAllowed = APNSRejectionReason("MethodNotAllowed", status: 405)
    public static let expiredToken = APNSRejectionReason("ExpiredToken", status: 410)
    public static let unregistered = APNSRejectionReason("Unregistered", status: 410)
    public static let payloadTooLarge = APNSRejectionReason("PayloadTooLarge", status: 413)
    public static let tooManyProviderTokenUpdates = APNSRejectionReason("TooManyProviderTokenUpdates", status: 429)
    public static let tooManyRequests = APNSRejectionReason("TooManyRequests", status: 429)
    public static let internalServerError = APNSRejectionReason("InternalServerError", status: 500)
    public static let serviceUnavailable = APNSRejectionReason("ServiceUnavailable", status: 503)
    public static let shutdown = APNSRejectionReason("Shutdown", status: 503)

    /// Every reason of reference §7 (plus PushMock's `BadPayload`).
    public static let all: [APNSRejectionReason] = [
        .badCollapseID, .badDeviceToken, .badExpirationDate, .badMessageID, .badPriority, .badTopic,
        .deviceTokenNotForTopic, .duplicateHeaders, .idleTimeout, .invalidPushType, .missingDeviceToken,
        .missingTopic, .payloadEmpty, .topicDisallowed, .badPayload, .badCertificate, .badCertificateEnvironment,
        .expiredProviderToken, .forbidden, .invalidProviderToken, .missingProviderToken, .unrelatedKeyIDInToken,
        .badEnvironmentKeyInToken, .badPath, .methodNotAllowed, .expiredToken, .unregistered, .payloadTooLarge,
        .tooManyProviderTokenUpdates, .tooManyRequests, .internalServerError, .serviceUnavailable, .shutdown,
    ]

    /// The reason with this wire string, if PushMock knows it.
    public static func named(_ reason: String) -> APNSRejectionReason? {
        all.first { $0.reason == reason } ?? broadcast.first { $0.reason == reason }
    }

    // Broadcast push and channel management only (apns.md §10).
    public static let featureNotEnabled = APNSRejectionReason("FeatureNotEnabled", status: 400)
    public static let missingChannelID = APNSRejectionReason("MissingChannelId", status: 400)
    public static let badChannelID = APNSRejectionReason("BadChannelId", status: 400)
    public static let channelNotRegistered = APNSRejectionReason("ChannelNotRegistered", status: 400)
    public static let badRequestParams = APNSRejectionReason("BadRequestParams", status: 400)
    public static let badRequestPayload = APNSRejectionReason("BadRequestPayload", status: 400)
    public static let missingPushType = APNSRejectionReason("MissingPushType", status: 400)
    public static let cannotCreateChannelConfig = APNSRejectionReason("CannotCreateChannelConfig", status: 400)
    /// Reported by a client, not documented by Apple: a missing or invalid `message-storage-policy`.
    public static let missingChannelQueueSize = APNSRejectionReason("MissingChannelQueueSize", status: 400)
    public static let topicMismatch = APNSRejectionReason("TopicMismatch", status: 403)

    /// The reasons only broadcast and channel management answer.
    public static let broadcast: [APNSRejectionReason] = [
        .featureNotEnabled, .missingChannelID, .badChannelID, .channelNotRegistered, .badRequestParams, .badRequestPayload,
        .missingPushType, .cannotCreateChannelConfig, .missingChannelQueueSize, .topicMismatch,
    ]
}
