import PushMockCore
import PushMockStore

/// `/api/v1/deliveries…`: list, remove, one, its curl command, and the long-poll wait.
extension InspectionRouter {
    func listDeliveries(_ call: InspectionCall) async throws -> InspectionAnswer {
        let limit = try DeliveryQuery.limit(call.request)
        let filter = try DeliveryQuery.filter(call.request.query, allowing: ["limit"])
        let page = try await store.query(filter, limit: limit)
        let list = DeliveryList(
            deliveries: page.deliveries.map { DeliveryResource($0, reveal: call.request.reveal) }, total: page.total,
            newestId: page.deliveries.first?.id, oldestId: page.deliveries.last?.id
        )
        return .response(.json(200, list))
    }

    func removeDeliveries(_ call: InspectionCall) async throws -> InspectionAnswer {
        let filter = try DeliveryQuery.filter(call.request.query)
        return .response(.json(200, RemovedCount(removed: try await store.remove(filter))))
    }

    func delivery(_ call: InspectionCall) async throws -> InspectionAnswer {
        let delivery = try await storedDelivery(call)
        return .response(.json(200, DeliveryResource(delivery, reveal: call.request.reveal)))
    }

    func curl(_ call: InspectionCall) async throws -> InspectionAnswer {
        let delivery = try await storedDelivery(call)
        let command = CurlCommand.command(for: delivery, address: settings.pushAddress, reveal: call.request.reveal)
        return .response(InspectionResponse(status: 200, contentType: "text/plain; charset=utf-8", body: Array(command.utf8)))
    }

    func storedDelivery(_ call: InspectionCall) async throws -> Delivery {
        _ = try DeliveryQuery.filter(call.request.query.filter { $0.name == "reveal" })
        let id = try DeliveryQuery.id(call.parameter("id"))
        guard let delivery = try await store.delivery(id: id) else {
            throw InspectionError.notFound("no delivery \(id) (never recorded, removed, or past retention)")
        }
        return delivery
    }

    /// `GET /api/v1/deliveries/wait?<filters>&count=N&timeout=5s&limit=L`: 200 once `count`
    /// matching deliveries exist, else 408 at the timeout with what there is.
    func waitForDeliveries(_ call: InspectionCall) async throws -> InspectionAnswer {
        var count = 1
        var timeout: Int64 = 5000
        for (name, value) in call.request.query {
            switch name {
            case "count":
                guard let parsed = Int(value), parsed >= 1, parsed <= 100_000 else {
                    throw InspectionError.badRequest("count must be an integer from 1 to 100000, got \(value)")
                }
                count = parsed
            case "timeout":
                guard let parsed = DeliveryQuery.milliseconds(value), parsed >= 0, parsed <= 300_000 else {
                    throw InspectionError.badRequest("timeout must be a duration up to 300s such as 5s, 500ms or 2.5, got \(value)")
                }
                timeout = parsed
            default:
                continue
            }
        }
        let limit = try DeliveryQuery.limit(call.request)
        let filter = try DeliveryQuery.filter(call.request.query, allowing: ["count", "timeout", "limit"])
        try DeliveryQuery.refuseRelayFilter(filter, in: "wait")
        // Long-polls hold a connection as an event stream does: capped, so that with the streams
        // they always leave the inspection port room for /livez and /metrics.
        guard longPolls.take() else {
            throw InspectionError(
                503,
                "\(longPolls.limit) long-polls are waiting, the most this server takes at once (half of the inspection port's connections); try again"
            )
        }
        defer { longPolls.giveBack() }
        let arrived = try await store.wait(for: filter, count: count, timeout: .milliseconds(timeout))
        let page = try await store.query(filter, limit: limit)
        let result = WaitResult(
            deliveries: page.deliveries.map { DeliveryResource($0, reveal: call.request.reveal) }, total: page.total, count: count,
            timedOut: !arrived, newestId: page.deliveries.first?.id,
            error: arrived ? nil : "timed out after \(timeout) ms with \(page.total) of \(count) matching deliveries"
        )
        return .response(.json(arrived ? 200 : 408, result))
    }
}
