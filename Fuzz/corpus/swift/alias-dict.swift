typealias D = [String: D]
import ActivityKit
struct A: ActivityAttributes {
  struct ContentState: Codable, Hashable { var f: D }
  var name: String
}
