import ActivityKit
import SwiftUI

struct OrderAttributes: ActivityAttributes {
    public struct ContentState: Codable, Hashable {
        var stage: Stage
        var etaMinutes: Int?
        var stops: [Stop]
        enum CodingKeys: String, CodingKey { case stage, etaMinutes = "eta_minutes", stops }
    }
    enum Stage: String, Codable { case preparing, ready }
    struct Stop: Codable, Hashable { let id: UUID; var label: String; var website: URL? }
    var orderID: String
}

extension OrderAttributes { typealias State = ContentState }
enum Event: Codable, Hashable { case idle, moved(to: String, Int) }
