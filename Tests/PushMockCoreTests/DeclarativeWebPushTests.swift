import PushMockCore
import Testing

/// Declarative Web Push read as the Push API's declarative push message parser reads it.
@Suite("Declarative Web Push: shown, refused with the member's path, or not declarative")
struct DeclarativeWebPushTests {
    static func read(_ json: String) -> DeclarativeWebPush.Reading { DeclarativeWebPush.read(Array(json.utf8)) }

    @Test("a valid message is shown with its title, body, navigate, mutable and app badge")
    func valid() throws {
        let reading = Self.read(
            #"{"web_push":8030,"notification":{"title":"Ada emailed","body":"Tube strike","navigate":"https://email.example/m/12","lang":"en-US","dir":"ltr","tag":"m12","silent":false,"icon":"/icon.png","timestamp":1796000000000,"actions":[{"action":"open","title":"Open","navigate":"https://email.example/m/12"}],"mutable":true,"data":{"any":[1,2]}},"app_badge":4}"#
        )
        guard case .shown(let notification) = reading else {
            Issue.record("not shown: \(reading)")
            return
        }
        #expect(notification.title == "Ada emailed" && notification.body == "Tube strike" && notification.navigate == "https://email.example/m/12")
        #expect(notification.mutable && notification.appBadge == 4 && notification.notes.isEmpty)
        guard case .shown(let minimal) = Self.read(#"{"web_push":8030.0,"notification":{"title":"T","navigate":"/inbox"}}"#) else {
            Issue.record("the least valid message is not shown")
            return
        }
        #expect(!minimal.mutable && minimal.appBadge == nil && minimal.body == nil)
    }

    @Test(
        "each mistake is refused, naming the member and the rule",
        arguments: [
            (#"{"web_push":8030}"#, "notification", "is required"),
            (#"{"web_push":8030,"notification":"hi"}"#, "notification", "must be an object"),
            (#"{"web_push":8030,"notification":{"navigate":"https://a.example/"}}"#, "notification.title", "is required"),
            (#"{"web_push":8030,"notification":{"title":7,"navigate":"https://a.example/"}}"#, "notification.title", "must be a string"),
            (#"{"web_push":8030,"notification":{"title":"T"}}"#, "notification.navigate", "is required"),
            (#"{"web_push":8030,"notification":{"title":"T","navigate":42}}"#, "notification.navigate", "must be a string holding a URL"),
            (
                #"{"web_push":8030,"notification":{"title":"T","navigate":"ftp://a.example/f"}}"#, "notification.navigate",
                "must be an http: or https: URL, not ftp:"
            ),
            (
                #"{"web_push":8030,"notification":{"title":"T","navigate":"https:///nohost"}}"#, "notification.navigate",
                "must name a host (https://host/…)"
            ),
            (#"{"web_push":8030,"notification":{"title":"T","navigate":""}}"#, "notification.navigate", "must be a URL (empty, or with a space)"),
            (#"{"web_push":8030,"notification":{"title":"T","navigate":"/a","dir":"up"}}"#, "notification.dir", #"must be "auto", "ltr" or "rtl""#),
            (#"{"web_push":8030,"notification":{"title":"T","navigate":"/a","body":["x"]}}"#, "notification.body", "must be a string"),
            (#"{"web_push":8030,"notification":{"title":"T","navigate":"/a","mutable":"yes"}}"#, "notification.mutable", "must be a boolean"),
            (
                #"{"web_push":8030,"notification":{"title":"T","navigate":"/a","silent":true,"vibrate":[100]}}"#, "notification.vibrate",
                "cannot be given with silent: true"
            ),
            (#"{"web_push":8030,"notification":{"title":"T","navigate":"/a","renotify":true}}"#, "notification.renotify", "needs a non-empty tag"),
            (
                #"{"web_push":8030,"notification":{"title":"T","navigate":"/a","timestamp":-1}}"#, "notification.timestamp",
                "must be a whole number of milliseconds, 0 or more"
            ),
            (
                #"{"web_push":8030,"notification":{"title":"T","navigate":"/a","actions":[{"action":"a"}]}}"#, "notification.actions[0].title",
                "is a required string"
            ),
        ])
    func refused(_ json: String, _ path: String, _ rule: String) {
        #expect(Self.read(json) == .refused(.init(path: path, rule: rule)))
    }

    @Test("an app_badge out of range is ignored, with a note, as the parser ignores it")
    func badgeOutOfRange() {
        guard case .shown(let notification) = Self.read(#"{"web_push":8030,"app_badge":-1,"notification":{"title":"T","navigate":"/a"}}"#) else {
            Issue.record("not shown")
            return
        }
        #expect(notification.appBadge == nil && notification.notes.count == 1)
    }

    @Test(
        "a payload without web_push: 8030 is an ordinary push",
        arguments: [#"{"title":"T"}"#, #"{"web_push":9001,"notification":{}}"#, "[8030]", "not json", ""])
    func notDeclarative(_ text: String) {
        #expect(Self.read(text) == .notDeclarative)
    }
}

@Suite("Web Push subscriptions: the order they were minted in")
struct WebPushSubscriptionOrderTests {
    @Test("subscriptions minted in one millisecond get increasing createdAt, so a store restores them in order")
    func sameMillisecond() {
        let registry = WebPushSubscriptions()
        let minted = (0..<5).map { index in
            registry.create(service: index.isMultiple(of: 2) ? .google : .apple, applicationServerKey: nil, now: 1_796_000_000_000)
        }
        #expect(minted.map(\.createdAt) == (0..<5).map { 1_796_000_000_000 + Int64($0) })
        #expect(registry.all().map(\.id) == minted.map(\.id))
        let later = registry.create(service: .mozilla, applicationServerKey: nil, now: 1_796_000_100_000)
        #expect(later.createdAt == 1_796_000_100_000, "a later clock is taken as it is")
    }
}
