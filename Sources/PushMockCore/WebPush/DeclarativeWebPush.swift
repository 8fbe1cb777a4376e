/// A Declarative Web Push message (the W3C Push API's "declarative push message parser", shipped
/// in Safari 18.4): a decrypted payload `{"web_push": 8030, "notification": {…}}` that the browser
/// shows itself, with no service worker. A payload marked `web_push: 8030` that fails the parser is
/// not shown: Safari hands it to the service worker's `push` event instead, and a web app that
/// relies on the declarative form (no handler) shows nothing.
///
/// ```swift
/// switch DeclarativeWebPush.read(plaintext) {
/// case .notDeclarative: …
/// case .shown(let notification): … notification.title, notification.navigate
/// case .refused(let problem): … problem.path, problem.rule
/// }
/// ```
public enum DeclarativeWebPush {
    /// The notification the browser shows.
    public struct Notification: Sendable, Hashable {
        public var title: String
        public var body: String?
        public var navigate: String
        /// `mutable`: a service worker (if any) gets a `pushnotification` event first and may change it.
        public var mutable: Bool
        /// `app_badge`, when it is an integer from 0 to 2^63 − 1 (the app icon's badge).
        public var appBadge: Int64?
        /// What the parser ignores, but a sender would want to know (an `app_badge` out of range).
        public var notes: [String]
    }

    /// Why the parser refuses the message: the member's path and the rule.
    public struct Problem: Sendable, Hashable, Error {
        public var path: String
        public var rule: String

        public init(path: String, rule: String) {
            self.path = path
            self.rule = rule
        }
    }

    public enum Reading: Sendable, Hashable {
        /// Not JSON, not an object, or without `web_push: 8030`: an ordinary push message.
        case notDeclarative
        case shown(Notification)
        case refused(Problem)
    }

    static let booleans = ["renotify", "silent", "requireInteraction", "mutable"]
    static let strings = ["body", "lang", "tag"]
    static let urls = ["image", "icon", "badge"]

    /// Reads a decrypted payload as the browser's parser does.
    public static func read(_ plaintext: [UInt8]) -> Reading {
        guard let message = JSONValue.parse(plaintext), case .object = message, let marker = message["web_push"] else { return .notDeclarative }
        guard case .number(let number) = marker, Double(number) == 8030 else { return .notDeclarative }
        do throws(Problem) {
            return .shown(try notification(in: message))
        } catch {
            return .refused(error)
        }
    }

    private static func notification(in message: JSONValue) throws(Problem) -> Notification {
        guard let input = message["notification"] else { throw Problem(path: "notification", rule: "is required") }
        guard case .object = input else { throw Problem(path: "notification", rule: "must be an object") }
        guard case .string(let title)? = input["title"] else {
            throw Problem(path: "notification.title", rule: input["title"] == nil ? "is required" : "must be a string")
        }
        guard let navigateValue = input["navigate"] else { throw Problem(path: "notification.navigate", rule: "is required") }
        let navigate = try url(navigateValue, at: "notification.navigate")
        try options(input)
        var notes: [String] = []
        var mutable = false
        if case .bool(let flag)? = input["mutable"] { mutable = flag }
        var badge: Int64?
        if let value = message["app_badge"] {
            if case .number(let text) = value, let count = Int64(text), count >= 0 {
                badge = count
            } else {
                notes.append("app_badge is ignored: it must be an integer from 0 to 9223372036854775807")
            }
        }
        var body: String?
        if case .string(let text)? = input["body"] { body = text }
        return Notification(title: title, body: body, navigate: navigate, mutable: mutable, appBadge: badge, notes: notes)
    }

    /// `NotificationOptions`' members as the conversion to the IDL dictionary and "create a
    /// notification" check them.
    private static func options(_ input: JSONValue) throws(Problem) {
        for name in strings {
            if let value = input[name], !value.isString { throw Problem(path: "notification.\(name)", rule: "must be a string") }
        }
        for name in booleans {
            if let value = input[name], !value.isBool { throw Problem(path: "notification.\(name)", rule: "must be a boolean") }
        }
        for name in urls {
            if let value = input[name] { _ = try url(value, at: "notification.\(name)") }
        }
        if let dir = input["dir"] {
            guard case .string(let text) = dir, ["auto", "ltr", "rtl"].contains(text) else {
                throw Problem(path: "notification.dir", rule: "must be \"auto\", \"ltr\" or \"rtl\"")
            }
        }
        if let timestamp = input["timestamp"] {
            guard case .number(let text) = timestamp, let value = UInt64(text) else {
                throw Problem(path: "notification.timestamp", rule: "must be a whole number of milliseconds, 0 or more")
            }
            _ = value
        }
        if let vibrate = input["vibrate"] {
            let pattern: [JSONValue]
            if case .array(let items) = vibrate { pattern = items } else { pattern = [vibrate] }
            for item in pattern {
                guard case .number(let text) = item, let value = UInt64(text), value <= UInt64(UInt32.max) else {
                    throw Problem(path: "notification.vibrate", rule: "must be a number of milliseconds or a list of them")
                }
            }
            if input["silent"] == .bool(true) { throw Problem(path: "notification.vibrate", rule: "cannot be given with silent: true") }
        }
        if input["renotify"] == .bool(true), input["tag"] == nil || input["tag"] == .string("") {
            throw Problem(path: "notification.renotify", rule: "needs a non-empty tag")
        }
        if let actions = input["actions"] { try self.actions(actions) }
    }

    private static func actions(_ actions: JSONValue) throws(Problem) {
        guard case .array(let list) = actions else { throw Problem(path: "notification.actions", rule: "must be a list") }
        for (index, action) in list.enumerated() {
            let path = "notification.actions[\(index)]"
            guard case .object = action else { throw Problem(path: path, rule: "must be an object") }
            for name in ["action", "title"] {
                guard case .string? = action[name] else { throw Problem(path: "\(path).\(name)", rule: "is a required string") }
            }
            for name in ["navigate", "icon"] {
                if let value = action[name] { _ = try url(value, at: "\(path).\(name)") }
            }
        }
    }

    /// A URL member: a string that parses as a URL, absolute `http:`/`https:` with a host, or a
    /// path resolved against the web app's URL.
    private static func url(_ value: JSONValue, at path: String) throws(Problem) -> String {
        guard case .string(let text) = value else { throw Problem(path: path, rule: "must be a string holding a URL") }
        guard !text.isEmpty, !text.contains(where: { $0 == " " || $0.isNewline }) else {
            throw Problem(path: path, rule: "must be a URL (empty, or with a space)")
        }
        if let colon = text.firstIndex(of: ":"), text[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }),
            text.first?.isLetter == true
        {
            let scheme = text[..<colon].lowercased()
            guard scheme == "https" || scheme == "http" else { throw Problem(path: path, rule: "must be an http: or https: URL, not \(scheme):") }
            let rest = text[text.index(after: colon)...]
            guard rest.hasPrefix("//"), rest.dropFirst(2).first.map({ $0 != "/" }) == true else {
                throw Problem(path: path, rule: "must name a host (\(scheme)://host/…)")
            }
        }
        return text
    }
}

extension JSONValue {
    fileprivate var isString: Bool { if case .string = self { true } else { false } }
    fileprivate var isBool: Bool { if case .bool = self { true } else { false } }
}
