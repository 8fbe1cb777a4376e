import PushMockBytes

/// The real services' host names PushMock answers as (transparent mode, the CONNECT proxy, or
/// any client that sends one of them as `:authority`/`Host` or SNI): each host serves only its own
/// paths, as the real one does.
enum RealHost: String, Sendable, CaseIterable {
    /// `api.push.apple.com`, `api.sandbox.push.apple.com`, `api.development.push.apple.com`: `/3/device/…`.
    case apns
    /// `api-broadcast[.sandbox].push.apple.com` (`/4/broadcasts/…`) and
    /// `api-manage-broadcast[.sandbox].push.apple.com` (`/1/apps/…`).
    case broadcast
    /// `fcm.googleapis.com`: `/v1/projects/…/messages:send` and `…/registrations/…/topicSubscriptions`.
    case fcm
    /// `oauth2.googleapis.com`: `/token`.
    case oauth2
    /// `iid.googleapis.com`: `/iid/…`.
    case iid
    /// Apple's Web Push service, `web.push.apple.com`: `/{id}`.
    case appleWebPush
    /// Mozilla's autopush, `updates.push.services.mozilla.com`: `/wpush/v1|v2/{id}`.
    case mozillaWebPush

    /// Every name, with the service it is.
    static let names: [String: RealHost] = [
        "api.push.apple.com": .apns,
        "api.sandbox.push.apple.com": .apns,
        "api.development.push.apple.com": .apns,
        "api-broadcast.push.apple.com": .broadcast,
        "api-broadcast.sandbox.push.apple.com": .broadcast,
        "api-manage-broadcast.push.apple.com": .broadcast,
        "api-manage-broadcast.sandbox.push.apple.com": .broadcast,
        "fcm.googleapis.com": .fcm,
        "oauth2.googleapis.com": .oauth2,
        "iid.googleapis.com": .iid,
        "web.push.apple.com": .appleWebPush,
        "updates.push.services.mozilla.com": .mozillaWebPush,
    ]

    /// The ports the real hosts listen on (APNs: 443 and 2197; Google: 443).
    static func isRealPort(_ port: Int, of host: RealHost) -> Bool {
        port == 443 || (port == 2197 && (host == .apns || host == .broadcast))
    }

    /// The host name of an authority (`name`, `name:port`, `[v6]:port`), lowercased, without the port.
    static func hostName(_ authority: String) -> Substring {
        if authority.hasPrefix("[") {
            return authority[..<(authority.firstIndex(of: "]").map { authority.index(after: $0) } ?? authority.endIndex)]
        }
        return authority[..<(authority.lastIndex(of: ":") ?? authority.endIndex)]
    }

    /// The real host an authority or SNI names, or `nil` (localhost, an address, another name).
    init?(authority: String?) {
        // Fast path, on the bytes: every real name ends in ".com" before its port, if any;
        // addresses and localhost do not (this runs for every push).
        guard let authority else { return nil }
        let mayBeReal =
            authority.withUTF8View { bytes -> Bool in
                // The last byte before the port (after the last colon, unless it is an IPv6 literal).
                var end = bytes.count
                if bytes.first != UInt8(ascii: "[") {
                    var index = bytes.count
                    while index > 0 {
                        index -= 1
                        if bytes[index] == UInt8(ascii: ":") {
                            end = index
                            break
                        }
                    }
                }
                return end > 0 && bytes[end - 1] | 0x20 == UInt8(ascii: "m")
            }
        guard mayBeReal, let host = Self.names[Self.hostName(authority).lowercased()] else { return nil }
        self = host
    }

    /// Whether an authority is a loopback name or an IP address (answered by path in transparent mode too).
    static func isLocal(_ authority: String) -> Bool {
        let name = hostName(authority).lowercased()
        if name == "localhost" || name.hasSuffix(".localhost") || name.hasPrefix("[") { return true }
        return !name.isEmpty && name.utf8.allSatisfy { (0x30...0x39).contains($0) || $0 == UInt8(ascii: ".") }
    }
}
