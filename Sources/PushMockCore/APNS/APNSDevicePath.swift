import PushMockBytes

/// `/3/device/<token>`, the path of every APNs push: the one place its token is cut out. (The
/// validator's ``APNSValidator/devicePathShape(_:)`` then judges the whole path in one pass.)
public enum APNSDevicePath {
    /// The path's prefix.
    public static let prefix = "/3/device/"

    /// The token of `path`: what follows ``prefix``, up to a `/` or `?`. Nil when `path` does not
    /// start with the prefix or names no token.
    public static func token(in path: String) -> Substring? {
        // Over the contiguous bytes: the generic UTF-8 view walk cost about 2 300 instructions a push.
        let range: Range<Int>? = path.withUTF8View { bytes in
            let start = 10  // "/3/device/".utf8.count
            guard bytes.count > start, bytes.view(0..<start).equals("/3/device/") else { return nil }
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: "/"), bytes[end] != UInt8(ascii: "?") { end += 1 }
            return end > start ? start..<end : nil
        }
        guard let range else { return nil }
        let utf8 = path.utf8
        return Substring(utf8[utf8.index(utf8.startIndex, offsetBy: range.lowerBound)..<utf8.index(utf8.startIndex, offsetBy: range.upperBound)])
    }

    /// The token of a path whose shape is known to be `/3/device/<token>` with nothing after it,
    /// as a `String` made straight from its bytes.
    public static func token(ofDevicePath path: String) -> String {
        path.withUTF8View { bytes in bytes.view(10..<bytes.count).string }
    }
}
