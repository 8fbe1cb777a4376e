import PushMockCore

/// `/api/v1/devices[/{token}]`: the device registry, in the configuration file's device format.
extension InspectionRouter {
    /// Registered tokens, and tokens known only by their FCM topic subscriptions (as active).
    func listDevices() -> InspectionAnswer {
        var records = devices.devices()
        let registered = Set(records.keys)
        for token in devices.subscribedTokens() where !registered.contains(token.lowercased()) {
            records[token] = DeviceRecord()
        }
        let all = records.sorted { $0.key < $1.key }.map { resource(token: $0.key, $0.value) }
        return .response(.json(200, DeviceList(devices: all)))
    }

    func device(_ call: InspectionCall) throws -> InspectionAnswer {
        let token = call.parameter("token")
        guard let record = devices.device(token) ?? (devices.topics(of: token).isEmpty ? nil : DeviceRecord()) else {
            throw InspectionError.notFound("no device \(token) in the registry")
        }
        return .response(.json(200, resource(token: token, record)))
    }

    private func resource(token: String, _ record: DeviceRecord) -> DeviceResource {
        var resource = DeviceResource(token: token, record)
        let topics = devices.topics(of: token)
        resource.topics = topics.isEmpty ? nil : topics
        return resource
    }

    func setDevice(_ call: InspectionCall) throws -> InspectionAnswer {
        let token = call.parameter("token")
        let record = try ControlBody.device(call.request.body, now: nowMilliseconds())
        devices.setDevice(token, record)
        return .response(.json(200, resource(token: token, record)))
    }

    func removeDevice(_ call: InspectionCall) throws -> InspectionAnswer {
        let token = call.parameter("token")
        guard devices.removeDevice(token) else { throw InspectionError.notFound("no device \(token) in the registry") }
        return .response(.json(200, RemovedCount(removed: 1)))
    }
}
