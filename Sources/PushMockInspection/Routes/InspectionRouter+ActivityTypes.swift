import PushMockCore

/// `/api/v1/activity-types[/{name}]`: declared `ActivityAttributes` types, whose content state and
/// attributes are decoded as the device decodes them.
extension InspectionRouter {
    func listActivityTypes() -> InspectionAnswer {
        let list = activities.activityTypes().sorted { $0.key < $1.key }.map { ActivityTypeResource(name: $0.key, $0.value) }
        return .response(.json(200, ActivityTypeList(activityTypes: list)))
    }

    func activityType(_ call: InspectionCall) throws -> InspectionAnswer {
        let name = call.parameter("name")
        guard let entry = activities.activityTypes()[name] else {
            throw InspectionError.notFound("no activity type \(name) is declared (PUT /api/v1/activity-types/\(name) declares one)")
        }
        return .response(.json(200, ActivityTypeResource(name: name, entry)))
    }

    func declareActivityType(_ call: InspectionCall) throws -> InspectionAnswer {
        let name = call.parameter("name")
        let declaration = try ControlBody.activityType(name, call.request.body)
        try activities.declareActivityType(name, declaration)
        return .response(.json(200, ActivityTypeResource(name: name, .declared(declaration))))
    }

    /// `PUT /api/v1/activity-types` with `content-type: text/x-swift`: every `ActivityAttributes`
    /// type in the body, read as `serve --activity-types` reads a file.
    func declareActivityTypes(_ call: InspectionCall) async throws -> InspectionAnswer {
        let mediaType = call.request.header("content-type").map { String($0.prefix { $0 != ";" }).lowercased().filter { $0 != " " } }
        guard mediaType == "text/x-swift" else {
            throw InspectionError(
                415,
                "PUT /api/v1/activity-types takes Swift source with content-type: text/x-swift (got \(mediaType ?? "none")); to declare one type in the JSON form, PUT /api/v1/activity-types/{name}"
            )
        }
        guard let text = String(validating: call.request.body, as: UTF8.self) else { throw InspectionError.badRequest("the body is not UTF-8 text") }
        let read = try await activities.declareActivityTypes(swiftSource: text, file: call.request.queryValue("file") ?? "request body")
        let list = read.types.map { ActivityTypeResource(name: $0.name, .declared($0.declaration)) }
        return .response(.json(200, ActivityTypeReading(activityTypes: list, warnings: read.warnings)))
    }

    func removeActivityType(_ call: InspectionCall) throws -> InspectionAnswer {
        let name = call.parameter("name")
        guard activities.removeActivityType(name) else { throw InspectionError.notFound("no activity type \(name) is declared") }
        return .response(.json(200, RemovedCount(removed: 1)))
    }
}
