import Foundation

/// `/api/v1/rejections` (the catalogue) and `/api/v1/deliveries/{id}/resend`: requests sent
/// through the push port by the server itself, for the web page and `pushmock rejections`.
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

    private func runner() throws -> CatalogueRunner {
        guard let sender else {
            throw InspectionError(409, "this inspection port has no push port to send through")
        }
        return CatalogueRunner(sender: sender, credentials: credentials, store: store, devices: devices, faults: faults, now: now)
    }
}
