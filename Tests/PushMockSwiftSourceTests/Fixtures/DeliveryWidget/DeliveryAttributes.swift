#if canImport(ActivityKit)
import ActivityKit
import Foundation

public struct DeliveryAttributes: ActivityAttributes {
    public typealias ContentState = DeliveryStatus

    public var orderID: String
    var restaurant: Restaurant
    let brand = "Acme"
    var note: String?
}
#endif
