/// `/3/device/<token>`, the path of every APNs push: the one place its token is cut out. (The
/// validator's ``APNSValidator/devicePathShape(_:)`` then judges the whole path in one pass.)
public enum APNSDevicePath {
    /// The path's prefix.
    public static let prefix = "/3/device/"

    /// The token of `path`: what follows ``prefix``, up to a `/` or `?`. Nil when `path` does not
    /// start with the prefix or names no token.
    public static func token(in path: String) -> Substring? {
        guard path.utf8.starts(with: prefix.utf8) else { return nil }
        let rest = path.utf8.dropFirst(prefix.utf8.count)
        let end = rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") } ?? rest.endIndex
        let token = Substring(rest[..<end])
        return token.isEmpty ? nil : token
    }
}
