import Foundation
public import PushMockCore

/// The shape of an app's `ActivityAttributes` type, for registering it without ActivityKit (which
/// Linux does not have): the attributes are the type itself, the content state its `ContentState`.
///
/// ```swift
/// struct DeliveryAttributes: PushMockActivityAttributes {
///     struct ContentState: Codable { var stage: Stage; var eta: Date }
///     var orderID: String
/// }
/// server.activityTypes.register(DeliveryAttributes.self)
/// ```
public protocol PushMockActivityAttributes: Decodable, SendableMetatype {
    /// The dynamic content (`aps.content-state`).
    associatedtype ContentState: Decodable & SendableMetatype
}

extension ActivityTypeRegistry {
    /// Checks pushes of `attributes-type` `name` by decoding their `attributes` and `content-state`
    /// with the app's own types and `JSONDecoder` (default strategies, as ActivityKit decodes).
    public func register<Attributes: Decodable & SendableMetatype, ContentState: Decodable & SendableMetatype>(
        _ name: String, attributes: Attributes.Type, contentState: ContentState.Type
    ) {
        declare(
            name,
            .decodable(
                DecodableActivityType(
                    attributes: { Self.failure(decoding: Attributes.self, from: $0, at: "attributes") },
                    contentState: { Self.failure(decoding: ContentState.self, from: $0, at: "content-state") }
                )))
    }

    /// Declares type `name` from a declaration in the config file's and the API's form
    /// (`{"attributes": {…}, "contentState": {…}, "types": {…}}`); throws naming the path of a problem.
    public func declare(_ name: String, _ declaration: String) throws {
        guard let json = JSONValue.parse(Array(declaration.utf8)) else {
            throw PushMockTestingError("the declaration of \(name) is not JSON")
        }
        declare(name, .declared(try ActivityTypeDeclaration(json: json)))
    }

    /// Registers `type` under its Swift name (what the app sends as `attributes-type`).
    public func register<Type: PushMockActivityAttributes>(_ type: Type.Type, name: String = String(describing: Type.self)) {
        register(name, attributes: Type.self, contentState: Type.ContentState.self)
    }

    /// Why `value` does not decode as `T`, with the JSON path, or nil when it does.
    static func failure<T: Decodable>(decoding type: T.Type, from value: JSONValue, at root: String) -> ActivityTypeCheck.Failure? {
        do {
            let data = try JSONEncoder().encode(value)
            _ = try JSONDecoder().decode(T.self, from: data)
            return nil
        } catch let error as DecodingError {
            func path(_ codingPath: [any CodingKey], _ last: (any CodingKey)? = nil) -> String {
                (codingPath + (last.map { [$0] } ?? [])).reduce(root) { path, key in
                    key.intValue.map { "\(path)[\($0)]" } ?? "\(path).\(key.stringValue)"
                }
            }
            switch error {
            case .keyNotFound(let key, let context):
                return .init(path: path(context.codingPath, key), message: "missing key \"\(key.stringValue)\"")
            case .valueNotFound(let expected, let context):
                return .init(path: path(context.codingPath), message: "expected \(expected), found null (only an optional takes null)")
            case .typeMismatch(let expected, let context):
                return .init(path: path(context.codingPath), message: "expected \(expected): \(context.debugDescription)")
            case .dataCorrupted(let context):
                return .init(path: path(context.codingPath), message: context.debugDescription)
            @unknown default:
                return .init(path: root, message: "\(error)")
            }
        } catch {
            return .init(path: root, message: "\(error)")
        }
    }
}
