import Foundation

/// `/api/v1/rejections` (the catalogue), `/api/v1/deliveries/{id}/resend` and `/api/v1/send`:
/// requests sent through the push port by the server itself, for the web page, `pushmock
/// rejections` and MCP; and `/api/v1/check`, which judges one without sending it.
extension InspectionRouter {
    func listRejections() -> InspectionAnswer {
        let parity = control.parityRecords()
        guard !parity.isEmpty else { return .response(.json(200, RejectionList(entries: RejectionCatalogue.entries))) }
        let entries = RejectionCatalogue.entries.map { entry in
            var entry = entry
            entry.parity = parity.filter(entry.counts)
            return entry
        }
        return .response(.json(200, RejectionList(entries: entries, parity: parity)))
    }

    func sendRejection(_ call: InspectionCall) async throws -> InspectionAnswer {
        let id = call.parameter("id")
        guard let entry = RejectionCatalogue.entry(id) else {
            throw InspectionError.notFound("no catalogue entry \(id) (GET /api/v1/rejections lists them)")
        }
        return .response(.json(200, try await runner().run(entry)))
    }

    func resendDelivery(_ call: InspectionCall) async throws -> InspectionAnswer {
        let delivery = try await storedDelivery(call)
        return .response(.json(200, try await runner().resend(delivery)))
    }

    /// `POST /api/v1/send`: a test push through the push port, recorded as any other.
    func sendTestPush(_ call: InspectionCall) async throws -> InspectionAnswer {
        let push = try TestPush(call.request.body, check: false)
        return .response(.json(200, try await runner().send(push)))
    }

    /// `POST /api/v1/check`: what the push port would answer a push, not recorded.
    func checkPush(_ call: InspectionCall) async throws -> InspectionAnswer {
        let push = try TestPush(call.request.body, check: true)
        let request = try push.request(
            credentials: credentials, now: now(), bearer: nil, send: false, webPush: webPush, authority: sender?.authority ?? "localhost")
        return .response(.json(200, CheckResult(try await control.check(request, environment: push.environment))))
    }

    private func runner() throws -> CatalogueRunner {
        guard let sender else {
            throw InspectionError(409, "this inspection port has no push port to send through")
        }
        return CatalogueRunner(
            sender: sender, credentials: credentials, store: store, devices: devices, faults: faults, now: now, webPush: webPush)
    }
}
