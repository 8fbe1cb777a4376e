import Foundation
import PushMockCore
import PushMockSwiftSource
import PushMockTesting
import Testing

/// An app's `ActivityAttributes` types read from its Swift source, as the device decodes them.
@Suite("Activity types read from Swift source")
struct SwiftSourceTests {
    static func fixture(_ name: String) -> String {
        Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: nil)!.path
    }

    /// The verdict of type `name` in `registry` on a push with these `attributes` (a start) or
    /// this content state (an update to an activity of that type): nil when it decodes, else the
    /// failure's JSON path.
    static func verdict(_ registry: ActivityTypeRegistry, _ name: String, attributes: String? = nil, contentState: String? = nil) throws -> String? {
        let token = String(repeating: "ab", count: 80)
        var aps: String
        if let attributes {
            aps =
                #""event":"start","timestamp":1,"attributes-type":"\#(name)","attributes":\#(attributes),"content-state":\#(contentState ?? "{}"),"alert":{"title":"t","body":"b"}"#
        } else {
            registry.bind(activityToken: token, to: name)
            aps = #""event":"update","timestamp":1,"content-state":\#(contentState ?? "{}")"#
        }
        let payload = try #require(JSONValue.parse(Array(#"{"aps":{\#(aps)}}"#.utf8)))
        let push = try #require(LiveActivityPush(payload: payload, priority: 10))
        let finding = registry.check(push, token: attributes == nil ? token : nil, now: PushInstant(secondsSinceEpoch: 1_767_225_600))
        return finding.violation.map { $0.explanation.components(separatedBy: ":").first ?? $0.explanation }
    }

    static func fields(_ fields: [ActivityTypeDeclaration.Field]) -> [String: String] {
        Dictionary(uniqueKeysWithValues: fields.map { ($0.name, $0.key == $0.name ? "\($0.type)" : "\($0.type) as \($0.key)") })
    }

    @Test("a widget extension: the type, its typealiased ContentState and the models in other files; views, computed and static members ignored")
    func widgetExtension() throws {
        let read = try SwiftActivityTypes.read(path: Self.fixture("DeliveryWidget"))
        #expect(read.warnings.isEmpty, "\(read.warnings)")
        #expect(read.types.map(\.name) == ["DeliveryAttributes"])
        let found = try #require(read.types.first)
        #expect(found.file.hasSuffix("DeliveryWidget/DeliveryAttributes.swift") && found.line == 5)
        #expect(found.declaration.origin == found.file + ":5", "GET /api/v1/activity-types shows it")
        let declaration = found.declaration
        #expect(
            Self.fields(declaration.attributes) == ["orderID": "String", "restaurant": "DeliveryAttributes.Restaurant", "note": "String?"],
            "a let with a value is never decoded")
        #expect(
            Self.fields(declaration.contentState) == [
                "stage": "Stage", "eta": "Date", "etaMinutes": "Int as eta_minutes", "driver": "Driver?", "stops": "[Stop]",
            ])
        #expect(declaration.types["Stage"] == .enumeration(raw: .string, cases: [.string("preparing"), .string("on_the_way"), .string("delivered")]))
        #expect(Set(declaration.types.keys) == ["Stage", "Stop", "Driver", "DeliveryAttributes.Restaurant"])

        let registry = ActivityTypeRegistry(["DeliveryAttributes": declaration])
        let fitting =
            #"{"stage":"on_the_way","eta":800000000,"eta_minutes":12,"stops":[{"id":"6F9619FF-8B86-D011-B42D-00C04FC964FF","label":"door"}],"driver":{"name":"Ana","rating":5}}"#
        #expect(
            try Self.verdict(registry, "DeliveryAttributes", attributes: #"{"orderID":"A1","restaurant":{"name":"Luigi's"}}"#, contentState: fitting)
                == nil)
        #expect(try Self.verdict(registry, "DeliveryAttributes", contentState: fitting) == nil)
        let mismatches: [(String, String)] = [
            (#"{"stage":"onTheWay","eta":1,"eta_minutes":1,"stops":[]}"#, "content-state.stage"),
            (#"{"stage":"preparing","eta":1,"etaMinutes":1,"stops":[]}"#, "content-state.eta_minutes"),
            (#"{"stage":"preparing","eta":"2026-01-01","eta_minutes":1,"stops":[]}"#, "content-state.eta"),
            (#"{"stage":"preparing","eta":1,"eta_minutes":1,"stops":[{"id":"x","label":"door"}]}"#, "content-state.stops[0].id"),
            (#"{"stage":"preparing","eta":1,"eta_minutes":1,"stops":[],"driver":{"name":"Ana","rating":300}}"#, "content-state.driver.rating"),
        ]
        for (contentState, path) in mismatches {
            let failure = try Self.verdict(registry, "DeliveryAttributes", contentState: contentState)
            #expect(failure?.contains(path) == true, "\(contentState): \(failure ?? "accepted")")
        }
        let attributes = try Self.verdict(registry, "DeliveryAttributes", attributes: #"{"orderID":"A1","restaurant":{}}"#, contentState: fitting)
        #expect(attributes?.contains("attributes.restaurant.name") == true, "\(attributes ?? "accepted")")
    }

    @Test("what cannot be read is named with its file and line, and that field goes unchecked; generic and hand-decoded types are warned about")
    func unreadable() throws {
        let read = try SwiftActivityTypes.read(path: Self.fixture("Unreadable/Types.swift"))
        #expect(read.types.map(\.name).sorted() == ["NoStateAttributes", "ScoreAttributes"])
        let messages = read.warnings.map(\.description)
        let expected = [
            "Types.swift:9: ScoreAttributes.ContentState.location: the type CLLocationCoordinate2D is not declared in the files read; it is not checked",
            "Types.swift:11: ScoreAttributes.ContentState.history: Box<Int> is a generic type; it is not checked",
            "Types.swift:18: Clock decodes itself (init(from:))",
            "Types.swift:33: GenericAttributes is generic",
            "NoStateAttributes has no ContentState PushMock can find",
        ]
        for text in expected {
            #expect(messages.contains { $0.contains(text) }, "missing warning \(text) in \(messages)")
        }
        let score = try #require(read.types.first { $0.name == "ScoreAttributes" }).declaration
        #expect(
            Self.fields(score.contentState) == [
                "home": "Int", "away": "Int", "location": "Any", "clock": "Clock", "history": "Any", "label": "String", "period": "Int",
                "quarter": "Int8",
            ])
        guard case .structure(let clock)? = score.types["Clock"] else {
            Issue.record("Clock is not declared as a struct: \(String(describing: score.types["Clock"]))")
            return
        }
        #expect(
            Self.fields(clock) == ["seconds": "Int?", "running": "Bool?"],
            "a type that decodes itself: each field checked when present, none required")
        let registry = ActivityTypeRegistry(["ScoreAttributes": score])
        #expect(
            try Self.verdict(
                registry, "ScoreAttributes",
                contentState: #"{"home":1,"away":0,"location":[1,2],"clock":{},"history":7,"label":"x","period":2,"quarter":1}"#) == nil)
        #expect(
            try Self.verdict(
                registry, "ScoreAttributes", contentState: #"{"home":1,"away":0,"clock":{},"history":7,"label":"x","period":2,"quarter":1}"#)?
                .contains("content-state.location") == true,
            "a field of an unknown type is still required")
        #expect(
            try Self.verdict(
                registry, "ScoreAttributes",
                contentState: #"{"home":1,"away":0,"location":0,"clock":{"running":"yes"},"history":7,"label":"x","period":2,"quarter":1}"#)?
                .contains("content-state.clock.running") == true)
    }

    @Test(
        "what is not a declaration is skipped as Swift reads it: braces in comments, strings (raw, multi-line, interpolated) and regular expressions; #if's first branch; accessors, static, lazy and let"
    )
    func syntax() throws {
        let read = try SwiftActivityTypes.read(path: Self.fixture("Syntax/Tricky.swift"))
        #expect(read.types.map(\.name) == ["TrickyAttributes"])
        let found = try #require(read.types.first)
        #expect(found.line == 6, "a declaration starts at its first attribute")
        let declaration = found.declaration
        #expect(Self.fields(declaration.attributes) == ["name": "String", "tree": "TrickyAttributes.Tree"])
        #expect(
            Self.fields(declaration.contentState) == [
                "title": "String", "raw": "String", "multi": "String", "interpolated": "String", "count": "Int", "observed": "Double",
                "typed": "[String: [Int]]?", "nested": "[[Int?]]", "qualified": "Int?", "pair": "Int", "closure": "Any?", "pattern": "Any",
                "bare": "Any", "ratio": "Any", "kind": "TrickyAttributes.Kind", "negative": "Double", "lock": "Any", "onlyOnIOS": "Bool",
                "afterConditionalAttributes": "UInt16",
            ],
            "no computed, static, lazy or initialized let property, nor the #else branch's")
        #expect(Set(declaration.types.keys) == ["TrickyAttributes.Kind", "TrickyAttributes.Tree"], "no type declared inside a function")
        #expect(
            declaration.types["TrickyAttributes.Kind"]
                == .enumeration(raw: .integer(name: "Int", signed: true, bits: 64), cases: [.number("-1"), .number("0"), .number("10")]))
        guard case .associated(let cases)? = declaration.types["TrickyAttributes.Tree"] else {
            Issue.record("Tree is not an enum with associated values: \(String(describing: declaration.types["TrickyAttributes.Tree"]))")
            return
        }
        #expect(cases.mapValues(Self.fields) == ["leaf": ["_0": "Int"], "node": ["left": "TrickyAttributes.Tree", "_1": "TrickyAttributes.Tree"]])
        #expect(
            read.warnings.map(\.description) == [
                "\(found.file):34: TrickyAttributes.ContentState.closure: () -> Void is not a type PushMock reads; it is not checked",
                "\(found.file):35: TrickyAttributes.ContentState.pattern has no type annotation PushMock can read; it is not checked",
                "\(found.file):36: TrickyAttributes.ContentState.bare has no type annotation PushMock can read; it is not checked",
                "\(found.file):37: TrickyAttributes.ContentState.ratio has no type annotation PushMock can read; it is not checked",
                "\(found.file):40: TrickyAttributes.ContentState.lock has no type annotation PushMock can read; it is not checked",
            ])
    }

    @Test("a path that is missing, or not a .swift file or folder, is an error naming it")
    func badPaths() throws {
        #expect(throws: SwiftSourceError.self) { try SwiftActivityTypes.read(path: "/nonexistent/Widget") }
        let json =
            Bundle.module.url(forResource: "Fixtures/DeliveryWidget/DeliveryStatus", withExtension: "swift")!.deletingLastPathComponent().path
            + "/../../SwiftSourceTests.swift.json"
        #expect(throws: SwiftSourceError.self) { try SwiftActivityTypes.read(path: json) }
    }

    /// Content states, fitting and not, for the agreement test.
    static let contentStates: [String] = [
        #"{"stage":"preparing","eta":1,"eta_minutes":1,"stops":[],"tip":2.5,"progress":0.5,"event":{"idle":{}},"priority":2}"#,
        #"{"stage":"delivered","eta":1.5,"eta_minutes":-3,"stops":[{"id":"6F9619FF-8B86-D011-B42D-00C04FC964FF","label":"door","website":"https://example.com"}],"tip":0,"progress":1,"event":{"moved":{"to":{"id":"6F9619FF-8B86-D011-B42D-00C04FC964FF","label":"x"},"_1":3}},"priority":3,"driver":{"name":"Ana","rating":-128,"vehicle":"bike"},"lastSeen":null}"#,
        #"{"stage":"preparing","eta":1,"eta_minutes":1,"stops":[],"tip":2.5,"progress":0.5,"event":{"delayed":{"minutes":65535}},"priority":1}"#,
        #"{"stage":"preparing","eta":1,"eta_minutes":1,"stops":[],"tip":2.5,"progress":0.5,"event":{"delayed":{"minutes":65536}},"priority":1}"#,
        #"{"stage":"preparing","eta":1,"eta_minutes":1,"stops":[],"tip":2.5,"progress":0.5,"event":{"delayed":{}},"priority":1}"#,
        #"{"stage":"preparing","eta":1,"eta_minutes":1,"stops":[],"tip":2.5,"progress":0.5,"event":{"idle":{},"moved":{}},"priority":1}"#,
        #"{"stage":"preparing","eta":1,"eta_minutes":1,"stops":[],"tip":2.5,"progress":0.5,"event":"idle","priority":1}"#,
        #"{"stage":"preparing","eta":1,"eta_minutes":1,"stops":[],"tip":2.5,"progress":0.5,"event":{"idle":{}},"priority":4}"#,
        #"{"stage":"preparing","eta":1,"eta_minutes":1,"stops":[],"tip":"2.5","progress":0.5,"event":{"idle":{}},"priority":1}"#,
        #"{"stage":"preparing","eta":1,"etaMinutes":1,"stops":[],"tip":2.5,"progress":0.5,"event":{"idle":{}},"priority":1}"#,
        #"{"stage":"preparing","eta":1,"eta_minutes":1,"stops":[],"tip":2.5,"progress":0.5,"event":{"idle":{}},"priority":1,"driver":{"name":"Ana","rating":1}}"#,
        #"{"stage":"preparing","eta":1,"eta_minutes":1,"stops":[],"tip":2.5,"progress":"half","event":{"idle":{}},"priority":1}"#,
        #"{"stage":"preparing","eta":1,"eta_minutes":1,"stops":[{"id":"6F9619FF-8B86-D011-B42D-00C04FC964FF","label":"x","website":42}],"tip":1,"progress":1,"event":{"idle":{}},"priority":1}"#,
        #"{"stage":"preparing","eta":1,"eta_minutes":1,"stops":[],"tip":2.5,"progress":0.5,"event":{"idle":{}},"priority":1,"lastSeen":"now"}"#,
    ]

    static let attributes: [String] = [
        #"{"orderID":"A1","restaurant":{"name":"Luigi's","cuisine":"italian"}}"#,
        #"{"orderID":"A1","restaurant":{"name":"Luigi's","cuisine":"fast_food"},"note":"ring","items":{"pizza":2}}"#,
        #"{"orderID":"A1","restaurant":{"name":"Luigi's","cuisine":"fastFood"}}"#,
        #"{"orderID":"A1","restaurant":{"name":"Luigi's","cuisine":"thai"},"items":{"pizza":"two"}}"#,
        #"{"orderID":"A1","restaurant":{"name":"Luigi's","cuisine":"thai"},"items":null}"#,
        #"{"orderID":1,"restaurant":{"name":"Luigi's","cuisine":"thai"}}"#,
        #"{"orderID":"A1","restaurant":{"name":"Luigi's","cuisine":"thai"},"brand":7}"#,
    ]

    @Test("the parser and the compiled types agree: the same pushes, fitting and not, get the same verdicts")
    func parserAgreesWithDecoder() throws {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Compiled/DeliveryTypes.swift").path
        let read = try SwiftActivityTypes.read(path: source)
        #expect(read.warnings.isEmpty, "\(read.warnings)")
        let declared = ActivityTypeRegistry(["DeliveryAttributes": try #require(read.types.first { $0.name == "DeliveryAttributes" }).declaration])
        let compiled = ActivityTypeRegistry()
        compiled.register(DeliveryAttributes.self)
        var rejected = 0
        for contentState in Self.contentStates {
            let parser = try Self.verdict(declared, "DeliveryAttributes", contentState: contentState)
            let decoder = try Self.verdict(compiled, "DeliveryAttributes", contentState: contentState)
            #expect((parser == nil) == (decoder == nil), "\(contentState): parser \(parser ?? "accepts"), JSONDecoder \(decoder ?? "accepts")")
            if decoder != nil { rejected += 1 }
        }
        let state = Self.contentStates[0]
        for attributes in Self.attributes {
            let parser = try Self.verdict(declared, "DeliveryAttributes", attributes: attributes, contentState: state)
            let decoder = try Self.verdict(compiled, "DeliveryAttributes", attributes: attributes, contentState: state)
            #expect((parser == nil) == (decoder == nil), "\(attributes): parser \(parser ?? "accepts"), JSONDecoder \(decoder ?? "accepts")")
            if decoder != nil { rejected += 1 }
        }
        #expect(rejected >= 12, "the cases include mismatches: \(rejected) rejected")
    }
}
