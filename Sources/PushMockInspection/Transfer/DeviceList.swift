/// `GET /api/v1/devices`.
public struct DeviceList: Codable, Sendable {
    public var devices: [DeviceResource]
}
