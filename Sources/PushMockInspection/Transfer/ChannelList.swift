/// `GET /api/v1/channels`.
public struct ChannelList: Codable, Sendable {
    public var channels: [ChannelResource]
    public var total: Int
}
