public import PushMockCore

/// The device registry as the inspection port sees it (`/api/v1/devices`).
public protocol DeviceDirectory: Sendable {
    /// Every registered token with its record.
    func devices() -> [String: DeviceRecord]
    /// The record of `token`.
    func device(_ token: String) -> DeviceRecord?
    /// Registers or replaces `token`.
    func setDevice(_ token: String, _ record: DeviceRecord)
    /// Forgets `token` (its record and its FCM topic subscriptions); false when it had neither.
    func removeDevice(_ token: String) -> Bool
    /// The FCM topics `token` is subscribed to, sorted (empty: none).
    func topics(of token: String) -> [String]
    /// Every token subscribed to at least one FCM topic.
    func subscribedTokens() -> Set<String>
}
