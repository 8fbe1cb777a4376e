public import PushMockCore
public import PushMockServer
public import PushMockStore

extension PushMockServer {
    /// Credentials for talking to this server (CA, APNs tokens, FCM assertions).
    public var credentials: PushMockTestCredentials {
        get throws { try PushMockTestCredentials(server: self) }
    }

    /// `https://localhost:<push port>`.
    public var pushURL: String { "https://localhost:\(pushPort)" }

    /// `http://127.0.0.1:<inspection port>`, when the inspection API is on.
    public var inspectionURL: String? { inspectionPort.map { "http://127.0.0.1:\($0)" } }

    /// Waits until `count` deliveries matching `filter` have been recorded (counting those already
    /// there), woken by recording rather than polling, and returns them oldest first. Throws
    /// ``PushMockTestingError`` with what it found at the timeout.
    ///
    /// ```swift
    /// let updates = try await server.waitForDeliveries(matching: DeliveryFilter(pushType: "liveactivity"), count: 2)
    /// #expect(updates[1].apnsPayload?.contentState?["score"] == .number("2"))
    /// ```
    @discardableResult
    public func waitForDeliveries(
        matching filter: DeliveryFilter = DeliveryFilter(), count: Int = 1, timeout: Duration = .seconds(5)
    ) async throws -> [Delivery] {
        precondition(count > 0, "count must be positive")
        let arrived = try await store.wait(for: filter, count: count, timeout: timeout)
        let matching = try await store.query(filter, limit: max(count, 1000)).deliveries.reversed().map { $0 }
        guard arrived, matching.count >= count else {
            throw PushMockTestingError("timed out after \(timeout) with \(matching.count) of \(count) matching deliveries", found: matching)
        }
        return matching
    }

    /// The matching deliveries recorded so far, oldest first.
    public func deliveries(matching filter: DeliveryFilter = DeliveryFilter(), limit: Int = 1000) async throws -> [Delivery] {
        try await store.query(filter, limit: limit).deliveries.reversed()
    }

    /// Adds a fault that answers matching requests with `status` and `reason` (APNs reason or FCM
    /// error code) for the next `count` of them (all when `nil`).
    @discardableResult
    public func injectFault(
        _ id: String, match: FaultRule.Match = FaultRule.Match(), reject status: Int, reason: String, count: Int? = 1
    ) -> FaultRule {
        faults.add(FaultRule(id: id, match: match, action: .reject(status: status, reason: reason), count: count))
    }
}

extension DeviceRegistry {
    /// Marks `token` unregistered since `at`: APNs answers `410 Unregistered` with that timestamp,
    /// FCM `404 UNREGISTERED`.
    public func unregister(token: String, at milliseconds: Int64, bundleID: String? = nil) {
        var record = record(for: token) ?? DeviceRecord()
        record.state = .unregistered(sinceMilliseconds: milliseconds)
        if let bundleID { record.bundleID = bundleID }
        set(record, for: token)
    }
}
