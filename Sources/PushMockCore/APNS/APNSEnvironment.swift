/// The APNs environment a request is judged in.
public enum APNSEnvironment: String, Sendable, Hashable, Codable, CaseIterable {
    /// `api.sandbox.push.apple.com` (and the older `api.development.push.apple.com`).
    case sandbox
    /// `api.push.apple.com`.
    case production

    /// The environment a host name selects, or `nil` for any other host (such as `localhost`).
    public init?(host: String) {
        // Fast path: every Apple host starts with "api"; localhost and addresses do not.
        guard let first = host.utf8.first, first | 0x20 == UInt8(ascii: "a") else { return nil }
        var name = Substring(host)
        if let colon = name.lastIndex(of: ":") {
            name = name[..<colon]
        }
        switch name.lowercased() {
        case "api.push.apple.com", "api-broadcast.push.apple.com", "api-manage-broadcast.push.apple.com":
            self = .production
        case "api.sandbox.push.apple.com", "api.development.push.apple.com",
            "api-broadcast.sandbox.push.apple.com", "api-manage-broadcast.sandbox.push.apple.com":
            self = .sandbox
        default:
            return nil
        }
    }
}
