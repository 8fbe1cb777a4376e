/// `/api/v1/devices[/{token}]`: the device registry, in the configuration file's device format.
extension InspectionRouter {
    func listDevices() -> InspectionAnswer {
        let all = devices.devices().sorted { $0.key < $1.key }.map { DeviceResource(token: $0.key, $0.value) }
        return .response(.json(200, DeviceList(devices: all)))
    }

    func device(_ call: InspectionCall) throws -> InspectionAnswer {
        let token = call.parameter("token")
        guard let record = devices.device(token) else { throw InspectionError.notFound("no device \(token) in the registry") }
        return .response(.json(200, DeviceResource(token: token, record)))
    }

    func setDevice(_ call: InspectionCall) throws -> InspectionAnswer {
        let token = call.parameter("token")
        let record = try devices.setDevice(token, json: call.request.body)
        return .response(.json(200, DeviceResource(token: token, record)))
    }

    func removeDevice(_ call: InspectionCall) throws -> InspectionAnswer {
        let token = call.parameter("token")
        guard devices.removeDevice(token) else { throw InspectionError.notFound("no device \(token) in the registry") }
        return .response(.json(200, RemovedCount(removed: 1)))
    }
}
