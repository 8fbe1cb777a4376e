/// `{"reset": true}`.
public struct ResetResult: Codable, Sendable {
    public var reset: Bool
}
