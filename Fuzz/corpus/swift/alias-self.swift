typealias Loop = Loop
import ActivityKit
struct A: ActivityAttributes {
  struct ContentState: Codable, Hashable { var f: Loop }
  var name: String
}
