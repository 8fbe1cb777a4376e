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
        let declaration = try activities.declareActivityType(name, json: call.request.body)
        return .response(.json(200, ActivityTypeResource(name: name, .declared(declaration))))
    }

    func removeActivityType(_ call: InspectionCall) throws -> InspectionAnswer {
        let name = call.parameter("name")
        guard activities.removeActivityType(name) else { throw InspectionError.notFound("no activity type \(name) is declared") }
        return .response(.json(200, RemovedCount(removed: 1)))
    }
}
