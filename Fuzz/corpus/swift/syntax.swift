import ActivityKit

/* a comment with a brace { and a /* nested */ one } */
@available(iOS 16.1, *)
public struct TrickyAttributes: ActivityAttributes, @unchecked Sendable {
    public struct ContentState: Codable, Hashable {
        // a line comment with a brace {
        var title: String = "a } brace"
        var raw = #"a "quoted" } brace \"#
        var multi = """
            a } brace and "quotes" \(1 + "}".count)
            """
        var interpolated = "\(1 + ")".count) } \("{")"
        private(set) var count: Int
        var observed: Double = 1 {
            didSet { print("}") }
        }
        var typed: [String: [Int]]? {
            willSet {}
        }
        var computed: Int { count * 2 }
        var getSet: Int {
            get { count }
            set { count = newValue }
        }
        static var shared = 0
        lazy var cache: [Int] = []
        let fixed = 3
        var nested: Array<Array<Int?>>
        var qualified: Swift.Optional<Int>
        var pair: (Int)
        var closure: (() -> Void)?
        var pattern = #/ \{ [}] /#
        var bare = /^\}(\d+)$/
        var ratio = 10 / 2
        var kind: Kind
        var negative = -1.5
        var lock = Mutex<(a: [String: Int], b: Task<Void, Never>?)>(([:], nil))
        #if os(iOS)
        var onlyOnIOS: Bool
        #else
        var notOnIOS: Bool
        #endif
        @available(*, deprecated)
        #if compiler(>=6.0)
        @inlinable
        #endif
        var afterConditionalAttributes: UInt16

        func helper() -> Int {
            struct Hidden: Codable { var inside: Int }
            switch count { case 1: return 1; default: return 0 }
        }
    }

    enum Kind: Int, Codable {
        case low = -1, zero
        case high = 1_0
    }

    indirect enum Tree: Codable {
        case leaf(_ value: Int), node(left: Tree, Tree = .leaf(0))
    }

    var name: String
    var tree: Tree
}

protocol Named { var name: String { get } }

#Preview("Tricky", as: .content, using: TrickyAttributes(name: "x")) {
    TrickyWidget()
} contentStates: {
    TrickyAttributes.ContentState.sample
}
