/// `/api/v1/faults[/{id}]`: the fault plan, in the configuration file's fault format.
extension InspectionRouter {
    func listFaults() -> InspectionAnswer {
        .response(.json(200, FaultList(faults: faults.faults().map(FaultResource.init))))
    }

    func addFault(_ call: InspectionCall) throws -> InspectionAnswer {
        let rule = try ControlBody.fault(call.request.body, index: faults.faults().count)
        return .response(.json(200, FaultResource(try faults.addFault(rule))))
    }

    func removeAllFaults() -> InspectionAnswer {
        .response(.json(200, RemovedCount(removed: faults.removeAllFaults())))
    }

    func removeFault(_ call: InspectionCall) throws -> InspectionAnswer {
        let id = call.parameter("id")
        guard faults.removeFault(id: id) else { throw InspectionError.notFound("no fault \(id)") }
        return .response(.json(200, RemovedCount(removed: 1)))
    }
}
