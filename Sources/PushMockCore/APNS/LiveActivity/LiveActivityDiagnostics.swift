/// The APNs headers the Live Activity diagnostics read: the request's own, or FCM's `apns.headers`.
public struct LiveActivityHeaders: Sendable, Hashable {
    /// `apns-topic`.
    public var topic: String?
    /// `apns-expiration`, as sent.
    public var expiration: String?
    /// `apns-collapse-id`.
    public var collapseID: String?

    public init(topic: String? = nil, expiration: String? = nil, collapseID: String? = nil) {
        self.topic = topic
        self.expiration = expiration
        self.collapseID = collapseID
    }
}

/// Pushes APNs accepts and a device applies, but that will not show what the sender meant: each
/// is recorded as a diagnostic on the delivery (docs/live-activities.md, "Diagnostics", gives the
/// evidence for each). Pure functions of one push; the device adds the ones that need its state.
public enum LiveActivityDiagnostics {
    /// The diagnostics of one push's `aps` and headers.
    public static func payload(aps: JSONValue, event: String, headers: LiveActivityHeaders) -> [String] {
        var found: [String] = []
        if event == "start", headers.expiration == "0" {
            found.append(
                "apns-expiration: 0 on a push-to-start: APNs tries once and does not store it, so a device that is offline or asleep never starts the activity; give the start a later expiration"
            )
        }
        if let topic = headers.topic {
            found += self.topic(topic)
        }
        if event == "start", case .object? = aps["alert"] {
            for part in ["title", "body"] {
                if case .string(let text)? = aps["alert"]?[part], text.allSatisfy(\.isWhitespace) {
                    found.append("aps.alert.\(part) is empty: the push-to-start alert shows no \(part)")
                }
            }
        }
        if let state = aps["content-state"] {
            var paths: [String] = []
            webURLs(in: state, path: "content-state", into: &paths)
            if !paths.isEmpty {
                let shown = paths.prefix(3).joined(separator: ", ") + (paths.count > 3 ? " and \(paths.count - 3) more" : "")
                found.append(
                    "\(shown) \(paths.count == 1 ? "is a web URL" : "are web URLs"): a Live Activity has no network access, so an image or data it names never loads; bundle the asset or share it through an App Group"
                )
            }
        }
        return found
    }

    /// What is wrong with a Live Activity topic that APNs itself may not say.
    public static func topic(_ topic: String) -> [String] {
        let suffix = ".push-type.liveactivity"
        guard topic.hasSuffix(suffix) else { return [] }
        let bundle = String(topic.dropLast(suffix.count))
        if bundle.hasSuffix(suffix) {
            return [
                "apns-topic ends in .push-type.liveactivity twice: APNs reads the bundle id \(bundle), which is no app's (add the suffix once: \(String(bundle.dropLast(suffix.count)))\(suffix))"
            ]
        }
        let last = bundle.split(separator: ".").last.map { $0.lowercased() } ?? ""
        if ["widget", "widgets", "extension"].contains(where: last.hasSuffix) {
            return [
                "apns-topic names \(bundle), which looks like a widget extension: Live Activity pushes go to the app's own bundle id plus .push-type.liveactivity (the token belongs to the app, and APNs answers DeviceTokenNotForTopic for an extension's id)"
            ]
        }
        return []
    }

    /// The paths of the strings under `value` that start with `http://` or `https://`.
    static func webURLs(in value: JSONValue, path: String, into paths: inout [String]) {
        switch value {
        case .string(let text):
            let lower = text.prefix(8).lowercased()
            if lower.hasPrefix("http://") || lower.hasPrefix("https://") { paths.append(path) }
        case .object(let members):
            for (key, member) in members { webURLs(in: member, path: "\(path).\(key)", into: &paths) }
        case .array(let elements):
            for (index, element) in elements.enumerated() { webURLs(in: element, path: "\(path)[\(index)]", into: &paths) }
        default:
            break
        }
    }

    /// Whether `a` and `b` decode to the same value: objects regardless of member order, numbers
    /// by value (what a `ContentState`'s synthesized `Equatable` compares after decoding).
    public static func sameContent(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.object(let left), .object(let right)):
            guard left.count == right.count else { return false }
            var byKey: [String: JSONValue] = [:]
            for (key, value) in right { byKey[key] = value }
            return left.allSatisfy { key, value in byKey[key].map { sameContent(value, $0) } ?? false }
        case (.array(let left), .array(let right)):
            return left.count == right.count && zip(left, right).allSatisfy { sameContent($0, $1) }
        case (.number(let left), .number(let right)):
            return left == right || (Double(left) != nil && Double(left) == Double(right))
        default:
            return a == b
        }
    }

    /// An update whose content state is the one the activity shows.
    static let unchangedContent =
        "content-state equals the state the activity already shows: the device applies it, but the Lock Screen and Dynamic Island may not redraw (and a priority-10 update still counts against the budget)"

    /// An update applied at `now` that the device renders only at `rendersAt`, because it
    /// rendered this activity less than `interval` ago (all in milliseconds).
    static func heldForRender(after now: Int64, until rendersAt: Int64, interval: Int64) -> String {
        "the device renders this activity at most every \(seconds(interval)) s (--live-activity-render-interval): this update shows at \(ActivityTypeCheck.rfc3339(Double(rendersAt) / 1000)), \(seconds(rendersAt - now)) s from now, unless a later update arrives first and replaces it (coalesced: then it is never shown)"
    }

    /// Milliseconds as seconds, without a fraction when whole.
    private static func seconds(_ milliseconds: Int64) -> String {
        milliseconds % 1000 == 0 ? "\(milliseconds / 1000)" : String(Double(milliseconds) / 1000)
    }

    /// A second push-to-start for the same attributes while the first activity runs, without
    /// `apns-collapse-id`.
    static func secondStart(type: String, running id: String) -> String {
        "a second push-to-start for \(type) with the same attributes while activity \(id) is running, and no apns-collapse-id: the device starts a second activity (a retried start shows twice); send retries with one apns-collapse-id"
    }
}
