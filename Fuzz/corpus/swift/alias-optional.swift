typealias O = Optional<O>
import ActivityKit
struct A: ActivityAttributes {
  struct ContentState: Codable, Hashable { var f: O }
  var name: String
}
