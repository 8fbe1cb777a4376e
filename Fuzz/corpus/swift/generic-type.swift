import ActivityKit
struct G<T>: ActivityAttributes { struct ContentState: Codable, Hashable { var t: T } }
