public import PushMockCore

/// A declared `ActivityAttributes` type (`GET/PUT /api/v1/activity-types/{name}`): its declaration
/// as given, or `"declaredBy": "swift"` for a type registered from Swift tests with the app's own
/// `Decodable` types.
public struct ActivityTypeResource: Codable, Sendable, Equatable {
    /// The Swift name (the `attributes-type` of a start).
    public var name: String
    /// `declaration`, `source` (read from the app's Swift source), `preset` (a type an SDK
    /// defines, known without a declaration) or `swift`.
    public var declaredBy: String
    /// Where a type read from Swift source was declared (`file:line`), or, for a preset, the SDK
    /// and the file its definition was read from.
    public var origin: String?
    /// The declaration's fields, as given.
    public var attributes: JSONValue?
    public var contentState: JSONValue?
    public var types: JSONValue?

    /// `entry` as the API shows it.
    public init(name: String, _ entry: ActivityTypeRegistry.Entry) {
        self.name = name
        switch entry {
        case .declared(let declaration):
            declaredBy = declaration.preset != nil ? "preset" : declaration.origin == nil ? "declaration" : "source"
            origin = declaration.origin
            attributes = declaration.source["attributes"] ?? .object([])
            contentState = declaration.source["contentState"] ?? .object([])
            types = declaration.source["types"] ?? .object([])
        case .decodable:
            declaredBy = "swift"
        }
    }
}

/// `GET /api/v1/activity-types`.
public struct ActivityTypeList: Codable, Sendable {
    public var activityTypes: [ActivityTypeResource]
}

/// `PUT /api/v1/activity-types` (Swift source): the types declared, and the reader's warnings.
public struct ActivityTypeReading: Codable, Sendable {
    public var activityTypes: [ActivityTypeResource]
    public var warnings: [String]
}
