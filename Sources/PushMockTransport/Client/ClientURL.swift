extension HTTPClientPool {
    /// Where a connection goes.
    struct Origin: Hashable {
        var secure: Bool
        var host: String
        var port: Int
    }

    /// Scheme, host, port and path of an `http` or `https` URL.
    static func parse(_ url: String) -> (origin: Origin, path: String)? {
        let secure: Bool
        var rest: Substring
        if url.hasPrefix("https://") {
            secure = true
            rest = url.dropFirst(8)
        } else if url.hasPrefix("http://") {
            secure = false
            rest = url.dropFirst(7)
        } else {
            return nil
        }
        let slash = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        var path = String(rest[slash...])
        if path.isEmpty || path.hasPrefix("?") { path = "/" + path }
        rest = rest[..<slash]
        if let at = rest.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
        var host: Substring
        var port = secure ? 443 : 80
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return nil }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if after.hasPrefix(":") {
                guard let value = Int(after.dropFirst()) else { return nil }
                port = value
            } else if !after.isEmpty {
                return nil
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            guard let value = Int(rest[rest.index(after: colon)...]) else { return nil }
            port = value
        } else {
            host = rest
        }
        guard !host.isEmpty, (1...65535).contains(port) else { return nil }
        return (Origin(secure: secure, host: String(host), port: port), path)
    }

    static func isIPAddress(_ host: String) -> Bool {
        host.contains(":") || host.split(separator: ".").count == 4 && host.allSatisfy { $0 == "." || $0.isASCII && $0.isNumber }
    }

    static func bracketed(_ host: String) -> String { host.contains(":") ? "[\(host)]" : host }
}
