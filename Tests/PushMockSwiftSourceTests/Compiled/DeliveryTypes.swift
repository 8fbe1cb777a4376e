// The types of a delivery app's Live Activity, written as an app writes them. They are compiled
// into the tests (where `ActivityAttributes` is PushMockTesting's stand-in for ActivityKit's) and
// also read as source by the parser: both must judge every push alike.
import Foundation
import PushMockTesting

typealias ActivityAttributes = PushMockActivityAttributes

struct DeliveryAttributes: ActivityAttributes {
    typealias ContentState = DeliveryStatus

    var orderID: String
    var restaurant: Restaurant
    // (A `let` with a value is never decoded either; the compiler warns about it, and this
    // target builds with warnings as errors, so that rule is held by the DeliveryWidget fixture.)
    var note: String?
    var items: [String: Int] = [:]

    static var preview: DeliveryAttributes {
        DeliveryAttributes(orderID: "1", restaurant: Restaurant(name: "Luigi's", cuisine: .italian))
    }

    var title: String { "Order \(orderID)" }

    init(orderID: String, restaurant: Restaurant) {
        self.orderID = orderID
        self.restaurant = restaurant
    }
}

extension DeliveryAttributes {
    struct Restaurant: Codable, Hashable {
        var name: String
        var cuisine: Cuisine
    }

    enum Cuisine: String, Codable, Hashable {
        case italian, thai
        case fastFood = "fast_food"
    }
}

struct DeliveryStatus: Codable, Hashable {
    var stage: Stage
    var eta: Date
    var etaMinutes: Int = 0
    var driver: Driver?
    var stops: [Stop]
    var tip: Decimal
    var progress: CGFloat
    var event: Event
    var priority: Priority
    var lastSeen: TimeInterval?
    var total: Int { stops.count }

    enum CodingKeys: String, CodingKey {
        case stage, eta, driver, stops, tip, progress, event, priority, lastSeen
        case etaMinutes = "eta_minutes"
    }
}

enum Stage: String, Codable, Hashable {
    case preparing
    case onTheWay = "on_the_way"
    case delivered
}

enum Priority: Int, Codable, Hashable {
    case low = 1
    case normal, high
}

/// Swift 5.5's synthesized form: `{"moved": {"to": {...}, "_1": 3}}`.
enum Event: Codable, Hashable {
    case idle
    case moved(to: Stop, Int)
    case delayed(minutes: UInt16)
}

struct Stop: Codable, Hashable {
    var id: UUID
    var label: String
    var website: URL?
}

struct Driver: Codable, Hashable {
    var name: String
    var rating: Int8
    var vehicle: Vehicle
    typealias Vehicle = String
}
