import ActivityKit
import CoreLocation
import Foundation

struct ScoreAttributes: ActivityKit.ActivityAttributes {
    struct ContentState: Codable, Hashable {
        var home: Int
        var away: Int
        var location: CLLocationCoordinate2D
        var clock: Clock
        var history: Box<Int>
        var label = "live"
        var period = 1, quarter: Int8
    }
    var matchID: String
}

struct Clock: Codable, Hashable {
    var seconds: Int
    var running: Bool

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        seconds = try container.decodeIfPresent(Int.self, forKey: .seconds) ?? 0
        running = try container.decode(Bool.self, forKey: .running)
    }
}

struct Box<Value: Codable & Hashable>: Codable, Hashable {
    var value: Value
}

struct GenericAttributes<Payload: Codable & Hashable>: ActivityAttributes {
    struct ContentState: Codable, Hashable { var payload: Payload }
}

struct NoStateAttributes {
    var name: String
}

extension NoStateAttributes: ActivityAttributes {}
