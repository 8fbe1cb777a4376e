public import PushMockCore

/// Which deliveries a query wants. Every field left `nil` matches everything.
public struct DeliveryFilter: Sendable, Hashable {
    public var service: Delivery.Service?
    public var environment: String?
    public var deviceToken: String?
    public var topic: String?
    public var pushType: String?
    public var outcome: Delivery.Outcome?
    public var reason: String?
    public var status: Int?
    public var project: String?
    /// Only deliveries with an id greater than this (a cursor).
    public var after: UInt64?
    /// Only deliveries with an id less than this (paging backwards).
    public var before: UInt64?

    /// A filter that matches everything.
    public init() {}

    /// Whether `delivery` matches.
    public func matches(_ delivery: Delivery) -> Bool {
        if let after, delivery.id <= after { return false }
        if let before, delivery.id >= before { return false }
        if let service, delivery.service != service { return false }
        if let environment, delivery.environment != environment { return false }
        if let deviceToken, delivery.deviceToken?.lowercased() != deviceToken.lowercased() { return false }
        if let topic, delivery.topic != topic { return false }
        if let pushType, delivery.pushType != pushType { return false }
        if let outcome, delivery.outcome != outcome { return false }
        if let reason, delivery.reason != reason { return false }
        if let status, delivery.status != status { return false }
        if let project, delivery.project != project { return false }
        return true
    }
}
