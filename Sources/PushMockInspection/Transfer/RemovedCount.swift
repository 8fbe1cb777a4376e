/// `{"removed": n}`.
public struct RemovedCount: Codable, Sendable {
    public var removed: Int
}
