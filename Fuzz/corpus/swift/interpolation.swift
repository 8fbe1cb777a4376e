let s = "\(\(\(\(\(\(\(\(\(\(\(\(\(\(\(\(\(\(\(\(\(\(\(\(\(\(\(\(\(\(\(\(\(\(\(\(\(\(\(\(1))))))))))))))))))))))))))))))))))))))))"
import ActivityKit
struct A: ActivityAttributes {
  struct ContentState: Codable, Hashable { var f: Int }
  var name: String
}
