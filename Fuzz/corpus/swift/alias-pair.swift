typealias P = Q
typealias Q = P
import ActivityKit
struct A: ActivityAttributes {
  struct ContentState: Codable, Hashable { var f: P }
  var name: String
}
