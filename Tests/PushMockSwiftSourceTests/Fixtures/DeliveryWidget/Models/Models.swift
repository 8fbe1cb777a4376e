import Foundation

enum Stage: String, Codable, Hashable {
    case preparing
    case onTheWay = "on_the_way"
    case delivered
}

struct Stop: Codable, Hashable {
    var id: UUID
    var label: String
}

struct Driver: Codable, Hashable {
    var name: String
    var rating: Int8
}

extension DeliveryAttributes {
    struct Restaurant: Codable, Hashable {
        var name: String
    }
}
