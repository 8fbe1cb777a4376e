import PushMockCore
import PushMockStore

/// `/api/v1/parity`: how often the real services agreed with PushMock (the relay's shadow,
/// relay and passthrough modes count it), and the forwarded requests as fixtures to commit.
extension InspectionRouter {
    func listParity() -> InspectionAnswer {
        .response(.json(200, ParityList(records: control.parityRecords())))
    }

    func clearParity() throws -> InspectionAnswer {
        do {
            return .response(.json(200, RemovedCount(removed: try control.clearParity())))
        } catch {
            throw InspectionError(503, "the parity records could not be read from the store: \(error)")
        }
    }

    /// `GET /api/v1/parity/fixtures?<filters>&limit=N`: the newest `limit` forwarded deliveries
    /// that agreed and the newest `limit` that did not (the usual filters narrow them), normalised
    /// (``ParityFixture``), one per distinct pair, by name.
    func parityFixtures(_ call: InspectionCall) async throws -> InspectionAnswer {
        let limit = try DeliveryQuery.limit(call.request)
        let filter = try DeliveryQuery.filter(call.request.query, allowing: ["limit"])
        var read = 0
        var byName: [String: ParityFixture] = [:]
        for agrees in filter.relayAgrees.map({ [$0] }) ?? [true, false] {
            var narrowed = filter
            narrowed.relayAgrees = agrees
            let page = try await store.query(narrowed, limit: limit)
            read += page.deliveries.count
            for delivery in page.deliveries {
                if let fixture = ParityFixture(delivery) { byName[fixture.name] = fixture }
            }
        }
        let fixtures = byName.values.sorted { $0.name < $1.name }
        return .response(.json(200, ParityFixtureList(fixtures: fixtures, deliveriesRead: read)))
    }
}
