/// A broadcast channel (`GET /api/v1/channels`).
public struct ChannelResource: Codable, Sendable, Equatable {
    public var channelId: String
    public var bundleId: String
    public var environment: String
    public var messageStoragePolicy: Int
    public var createdAt: InspectionTime
    /// The simulated activities subscribed to it.
    public var subscribers: [String]
}
