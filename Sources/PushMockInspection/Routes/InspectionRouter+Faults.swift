/// `/api/v1/faults[/{id}]`: the fault plan, in the configuration file's fault format.
extension InspectionRouter {
    func listFaults() -> InspectionAnswer {
        .response(.json(200, FaultList(faults: faults.faults().map(FaultResource.init))))
    }

    func addFault(_ call: InspectionCall) throws -> InspectionAnswer {
        .response(.json(200, FaultResource(try faults.addFault(json: call.request.body))))
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
