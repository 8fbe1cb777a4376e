import PushMockStore

/// `GET /api/v1/events`: Server-Sent Events of recorded deliveries (``EventStream``).
extension InspectionRouter {
    func openEventStream(_ call: InspectionCall) async throws -> InspectionAnswer {
        let filter = try DeliveryQuery.filter(call.request.query)
        try DeliveryQuery.refuseRelayFilter(filter, in: "the event stream")
        var cursor: UInt64
        if let last = call.request.header("last-event-id") {
            guard let id = UInt64(last.trimmingCharacters(in: " \t")) else {
                throw InspectionError.badRequest("Last-Event-ID must be a delivery id, got \(last)")
            }
            cursor = id
        } else if let after = filter.after {
            cursor = after
        } else {
            cursor = try await store.newestID()
        }
        guard events.join() else {
            throw InspectionError(
                503,
                "\(events.maxSubscribers) event streams are open, the most this server takes (--max-event-subscribers); close one or raise the limit")
        }
        let store = self.store
        let hub = events
        let reveal = call.request.reveal
        let keepAlive = settings.keepAlive
        let start = cursor
        let head = InspectionResponse(status: 200, contentType: "text/event-stream", headers: [.init("cache-control", "no-cache")], body: [])
        return .stream(head) { sink in
            EventStream.start(store: store, filter: filter, cursor: start, sink: sink, keepAlive: keepAlive, hub: hub, reveal: reveal)
        }
    }
}
