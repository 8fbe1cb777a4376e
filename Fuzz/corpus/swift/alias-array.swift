typealias L = [L]
import ActivityKit
struct A: ActivityAttributes {
  struct ContentState: Codable, Hashable { var f: L }
  var name: String
}
