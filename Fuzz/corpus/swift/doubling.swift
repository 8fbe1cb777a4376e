typealias T0 = Int
typealias T1 = [T0: T0]
typealias T2 = [T1: T1]
typealias T3 = [T2: T2]
typealias T4 = [T3: T3]
typealias T5 = [T4: T4]
typealias T6 = [T5: T5]
typealias T7 = [T6: T6]
typealias T8 = [T7: T7]
typealias T9 = [T8: T8]
typealias T10 = [T9: T9]
typealias T11 = [T10: T10]
typealias T12 = [T11: T11]
typealias T13 = [T12: T12]
typealias T14 = [T13: T13]
typealias T15 = [T14: T14]
typealias T16 = [T15: T15]
typealias T17 = [T16: T16]
typealias T18 = [T17: T17]
typealias T19 = [T18: T18]
typealias T20 = [T19: T19]
typealias T21 = [T20: T20]
typealias T22 = [T21: T21]
typealias T23 = [T22: T22]
typealias T24 = [T23: T23]
typealias T25 = [T24: T24]
typealias T26 = [T25: T25]
typealias T27 = [T26: T26]
typealias T28 = [T27: T27]
typealias T29 = [T28: T28]
typealias T30 = [T29: T29]

import ActivityKit
struct A: ActivityAttributes {
  struct ContentState: Codable, Hashable { var f: T30 }
  var name: String
}
