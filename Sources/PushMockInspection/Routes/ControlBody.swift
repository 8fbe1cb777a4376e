import PushMockCore

/// Control-plane bodies in the configuration file's formats, decoded at the edge into Core's
/// types: a body that is not JSON, or not of the format, is a 400 naming the path.
enum ControlBody {
    static let file = "request body"

    /// The body as JSON.
    static func json(_ body: [UInt8]) throws(InspectionError) -> JSONValue {
        guard let json = JSONValue.parse(body) else { throw InspectionError.badRequest("the body is not valid JSON") }
        return json
    }

    /// A device record (`PUT /api/v1/devices/{token}`); `unregistered` without `unregisteredAt`
    /// is unregistered since `now` (ms).
    static func device(_ body: [UInt8], now: Int64) throws(InspectionError) -> DeviceRecord {
        let value = try json(body)
        return try decode { () throws(ConfigError) in try DeviceRecord(config: ConfigObject(file: file, path: "", value: value), now: now) }
    }

    /// A fault rule (`POST /api/v1/faults`); without an `id`, it is named after its place,
    /// `config-<index + 1>`.
    static func fault(_ body: [UInt8], index: Int) throws(InspectionError) -> FaultRule {
        let value = try json(body)
        return try decode { () throws(ConfigError) in try FaultRule(config: ConfigObject(file: file, path: "", value: value), index: index) }
    }

    /// An activity type declaration (`PUT /api/v1/activity-types/{name}`).
    static func activityType(_ name: String, _ body: [UInt8]) throws(InspectionError) -> ActivityTypeDeclaration {
        guard ActivityTypeDeclaration.isTypeName(name) else {
            throw InspectionError.badRequest(
                "activity type names are Swift type names (the attributes-type of a start): a capital letter, then letters, digits or _; got \(name)"
            )
        }
        let json = try json(body)
        return try decode { () throws(ConfigError) in try ActivityTypeDeclaration(name: name, config: json, file: file, path: "") }
    }

    private static func decode<Value>(_ read: () throws(ConfigError) -> Value) throws(InspectionError) -> Value {
        do {
            return try read()
        } catch {
            throw InspectionError.badRequest(error.description)
        }
    }
}
