import PushMockCore

/// One operation of the inspection port: a method, a path pattern (`{name}` for one segment, as in
/// `openapi.yaml`) and its handler.
public struct InspectionRoute: Sendable {
    /// The method.
    public let method: String
    /// The path pattern, spelled as in `openapi.yaml`.
    public let path: String
    let pattern: [Substring]
    let handler: @Sendable (InspectionRouter, InspectionCall) async throws -> InspectionAnswer

    init(_ method: String, _ path: String, _ handler: @escaping @Sendable (InspectionRouter, InspectionCall) async throws -> InspectionAnswer) {
        self.method = method
        self.path = path
        self.pattern = path.split(separator: "/")
        self.handler = handler
    }

    /// The path parameters when `segments` match the pattern, else nil.
    func parameters(_ segments: [Substring]) -> [Substring: String]? {
        guard segments.count == pattern.count else { return nil }
        var parameters: [Substring: String] = [:]
        for (expected, segment) in zip(pattern, segments) {
            if expected.first == "{" {
                parameters[expected.dropFirst().dropLast()] = PercentDecoding.pathSegment(segment)
            } else if expected != segment {
                return nil
            }
        }
        return parameters
    }
}

/// A request matched to its route, with the path parameters.
public struct InspectionCall: Sendable {
    /// The request.
    public let request: InspectionRequest
    let parameters: [Substring: String]

    /// The path parameter `name` (the route's pattern guarantees it).
    func parameter(_ name: Substring) -> String {
        parameters[name] ?? ""
    }
}
