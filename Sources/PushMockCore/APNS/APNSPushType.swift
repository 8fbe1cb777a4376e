import PushMockBytes

#if canImport(Glibc)
#elseif canImport(Darwin)
import Darwin
#endif

/// An `apns-push-type` value with what it implies: the topic suffix, the payload limit and the
/// priorities Apple allows. A closed wire set kept extensible (DESIGN.md, convention 3).
public struct APNSPushType: Sendable, Hashable, CustomStringConvertible {
    /// What the type implies, in one shared object: a push type is copied several times a push,
    /// and a copy is then one reference count, not two strings' and a set's.
    private final class Facts: Sendable {
        let rawValue: String
        let topicSuffix: String
        let maxPayloadSize: Int
        let allowedPriorities: Set<Int>?
        let allowsCertificateAuth: Bool

        init(rawValue: String, topicSuffix: String, maxPayloadSize: Int, allowedPriorities: Set<Int>?, allowsCertificateAuth: Bool) {
            self.rawValue = rawValue
            self.topicSuffix = topicSuffix
            self.maxPayloadSize = maxPayloadSize
            self.allowedPriorities = allowedPriorities
            self.allowsCertificateAuth = allowsCertificateAuth
        }
    }

    private let facts: Facts

    /// The wire value, such as `liveactivity`.
    public var rawValue: String { facts.rawValue }
    /// What `apns-topic` must end with after the bundle id (empty: the bare bundle id).
    public var topicSuffix: String { facts.topicSuffix }
    /// The largest payload in bytes.
    public var maxPayloadSize: Int { facts.maxPayloadSize }
    /// The priorities allowed; `nil` allows 1, 5 and 10.
    public var allowedPriorities: Set<Int>? { facts.allowedPriorities }
    /// Whether certificate (mutual TLS) connections may send it.
    public var allowsCertificateAuth: Bool { facts.allowsCertificateAuth }

    /// Creates a push type.
    public init(
        rawValue: String, topicSuffix: String, maxPayloadSize: Int = 4096, allowedPriorities: Set<Int>? = nil, allowsCertificateAuth: Bool = true
    ) {
        facts = Facts(
            rawValue: rawValue, topicSuffix: topicSuffix, maxPayloadSize: maxPayloadSize, allowedPriorities: allowedPriorities,
            allowsCertificateAuth: allowsCertificateAuth)
    }

    public var description: String { rawValue }

    public static let alert = APNSPushType(rawValue: "alert", topicSuffix: "")
    /// Apple calls priority 10 an error for background pushes; PushMock rejects it (configurable).
    public static let background = APNSPushType(rawValue: "background", topicSuffix: "", allowedPriorities: [1, 5])
    public static let location = APNSPushType(rawValue: "location", topicSuffix: ".location-query", allowsCertificateAuth: false)
    public static let voip = APNSPushType(rawValue: "voip", topicSuffix: ".voip", maxPayloadSize: 5120)
    public static let complication = APNSPushType(rawValue: "complication", topicSuffix: ".complication")
    public static let fileprovider = APNSPushType(rawValue: "fileprovider", topicSuffix: ".pushkit.fileprovider")
    /// MDM topics are the UID of the MDM certificate: no suffix is checked.
    public static let mdm = APNSPushType(rawValue: "mdm", topicSuffix: "")
    public static let liveactivity = APNSPushType(
        rawValue: "liveactivity", topicSuffix: ".push-type.liveactivity", allowedPriorities: [5, 10], allowsCertificateAuth: false)
    public static let pushtotalk = APNSPushType(rawValue: "pushtotalk", topicSuffix: ".voip-ptt")
    public static let widgets = APNSPushType(rawValue: "widgets", topicSuffix: ".push-type.widgets")
    public static let controls = APNSPushType(rawValue: "controls", topicSuffix: ".push-type.controls")

    /// All eleven push types Apple documents.
    public static let all: [APNSPushType] = [
        .alert, .background, .location, .voip, .complication, .fileprovider, .mdm, .liveactivity, .pushtotalk, .widgets, .controls,
    ]

    /// The push type for a wire value (exact, lowercase), or `nil` if APNs does not know it.
    public init?(wire: String) {
        switch wire {
        case "alert": self = .alert
        case "background": self = .background
        case "location": self = .location
        case "voip": self = .voip
        case "complication": self = .complication
        case "fileprovider": self = .fileprovider
        case "mdm": self = .mdm
        case "liveactivity": self = .liveactivity
        case "pushtotalk": self = .pushtotalk
        case "widgets": self = .widgets
        case "controls": self = .controls
        default: return nil
        }
    }

    /// The push type a topic's suffix implies when `apns-push-type` is absent (alert for a bare
    /// bundle id), with the bundle id.
    public static func inferred(fromTopic topic: String) -> (pushType: APNSPushType, bundleID: String) {
        let matched = topic.withUTF8View { bytes in
            suffixes.firstIndex { suffix in
                bytes.count > suffix.count && suffix.withByteView { bytes.view((bytes.count - suffix.count)..<bytes.count).equals($0) }
            }
        }
        guard let found = matched else { return (.alert, topic) }
        return (suffixed[found], String(Substring(topic.utf8.dropLast(suffixes[found].count))))
    }

    /// The push types whose topic has a suffix, and the suffixes' bytes (read on every push).
    private static let suffixed = all.filter { !$0.topicSuffix.isEmpty }
    private static let suffixes = suffixed.map { Array($0.topicSuffix.utf8) }

    public static func == (lhs: APNSPushType, rhs: APNSPushType) -> Bool { lhs.facts === rhs.facts || lhs.rawValue == rhs.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}
