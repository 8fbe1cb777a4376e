/// Every route of the inspection port and the methods it takes (the paths of `openapi.yaml`), so
/// that any other method on a known path is `405` with `Allow`, and an unknown path is `404`.
public enum InspectionRoutes {
    /// `*` stands for one path segment.
    static let table: [(pattern: [Substring], methods: [String])] = [
        ("livez", ["GET", "HEAD"]),
        ("readyz", ["GET", "HEAD"]),
        ("metrics", ["GET"]),
        ("api/v1/openapi.yaml", ["GET"]),
        ("api/v1/deliveries", ["GET", "DELETE"]),
        ("api/v1/deliveries/wait", ["GET"]),
        ("api/v1/deliveries/*", ["GET"]),
        ("api/v1/deliveries/*/curl", ["GET"]),
        ("api/v1/events", ["GET"]),
        ("api/v1/devices", ["GET"]),
        ("api/v1/devices/*", ["GET", "PUT", "DELETE"]),
        ("api/v1/faults", ["GET", "PUT", "DELETE"]),
        ("api/v1/faults/*", ["DELETE"]),
        ("api/v1/reset", ["POST"]),
        ("api/v1/keys", ["GET"]),
        ("api/v1/service-accounts", ["GET"]),
        ("api/v1/activities", ["GET"]),
        ("api/v1/activities/*", ["GET"]),
        ("api/v1/channels", ["GET"]),
    ].map { ($0.0.split(separator: "/"), $0.1) }

    /// Every route as `(path with * for a segment, methods)`.
    public static var routes: [(path: String, methods: [String])] {
        table.map { ("/" + $0.pattern.joined(separator: "/"), $0.methods) }
    }

    /// The methods the route at `path` (without query) takes, or nil for an unknown path. The
    /// first matching pattern wins, so literal segments go before `*`.
    public static func methods(for path: String) -> [String]? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        for route in table where route.pattern.count == segments.count {
            if zip(route.pattern, segments).allSatisfy({ $0 == "*" || $0 == $1 }) {
                return route.methods
            }
        }
        return nil
    }

    /// The answer for a request whose method or path no route takes, or nil when one does.
    public static func refusal(method: String, path: String) -> (response: InspectionResponse, allow: String?)? {
        guard let methods = methods(for: path) else {
            return (InspectionAPI.error(404, "no such endpoint: \(method) \(path) (the routes are in /api/v1/openapi.yaml)"), nil)
        }
        guard methods.contains(method) else {
            return (InspectionAPI.error(405, "\(method) is not allowed on \(path); allowed: \(methods.joined(separator: ", "))"), methods.joined(separator: ", "))
        }
        return nil
    }
}
