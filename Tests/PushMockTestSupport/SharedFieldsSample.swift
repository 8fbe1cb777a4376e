package import PushMockCore
package import PushMockStore
package import Testing

/// What the shared-fields tests of both lasting stores send and how they compare what they read.
package enum SharedFieldsSample {
    /// Four pushes on connection 7, the third with a binary body, the fourth with a header the
    /// others lack, and one on connection 8: three sets of shared fields.
    package static func deliveries() -> [Delivery] {
        var sent: [Delivery] = []
        for index in 1...4 {
            var delivery = SampleDelivery.make(index)
            if index == 4 { delivery.headers.append(HeaderField(name: "authorization", value: "bearer another")) }
            if index == 3 {
                // Every kind of byte a lasting store's record must keep: NUL, controls, backslashes, past ASCII.
                delivery.body = [0, 1, 9, 10, 13, 31, 32, 92, 92, 126, 127, 128, 200, 255] + Array(#"{"a":"\"é"}"#.utf8)
                delivery.bodyIsJSON = false
            }
            sent.append(delivery)
        }
        var other = SampleDelivery.make(5)
        other.connectionID = 8
        sent.append(other)
        return sent
    }

    /// Expects `read` to be `original` recorded as `id`, every field (compared packed).
    package static func expectSame(_ read: Delivery?, _ original: Delivery, id: UInt64) throws {
        let read = try #require(read, "delivery \(id) is missing")
        var expected = original
        expected.id = id
        #expect(PackedDelivery(read).arena == PackedDelivery(expected).arena, "delivery \(id) read back changed")
    }

    /// Expects reading delivery `id`, whose shared fields (named by its own id) were deleted, to
    /// fail with an error that names both.
    package static func expectMissingSharedFields(reading id: UInt64, from store: some DeliveryStore) async {
        do {
            _ = try await store.delivery(id: id)
            Issue.record("a delivery without its shared fields was read")
        } catch {
            #expect("\(error)".contains("delivery \(id) names shared fields \(id)"), "\(error)")
        }
    }

    /// One push of the sample on connection `connection` (index picks its body and id).
    package static func push(_ index: Int, connection: UInt64) -> Delivery {
        var delivery = SampleDelivery.make(index)
        delivery.connectionID = connection
        return delivery
    }

    /// With a store that cleans up after every 2 introduced shared fields: the shared rows no
    /// delivery names are deleted, the ones still named are kept, and a connection whose slot names
    /// cleaned-up fields gets them written again by its next batch. `sharedIDs` reads the table.
    package static func cleanupScenario(_ store: some DeliveryStore, flush: () async -> Void, sharedIDs: () async throws -> Set<Int64>) async throws {
        let first = store.record(push(1, connection: 7))
        await flush()
        let second = store.record(push(2, connection: 8))
        await flush()
        #expect(try await sharedIDs() == [Int64(first), Int64(second)])
        _ = try await store.remove(DeliveryFilter())
        // Connection 7 again (its slot names the first's fields), and two new connections: the
        // second introduction cleans up, and only connection 8's fields are named by nothing.
        _ = store.record(push(3, connection: 7))
        let fourth = store.record(push(4, connection: 9))
        await flush()
        let fifth = store.record(push(5, connection: 10))
        await flush()
        #expect(try await sharedIDs() == [Int64(first), Int64(fourth), Int64(fifth)])
        _ = try await store.remove(DeliveryFilter())
        _ = store.record(push(6, connection: 11))
        await flush()
        _ = store.record(push(7, connection: 12))
        await flush()
        #expect(try await sharedIDs().contains(Int64(first)) == false, "the first's fields, named by nothing, were kept")
        // Connection 7's slot still names the first's fields: its next batch writes them again.
        let eighth = store.record(push(8, connection: 7))
        await flush()
        #expect(try await sharedIDs().contains(Int64(first)))
        try expectSame(try await store.delivery(id: eighth), push(8, connection: 7), id: eighth)
    }

    /// Waits for `flush` (everything recorded committed), failing the test after
    /// ``TestDeadline/hang`` instead of hanging it: a store whose writes keep failing retries them
    /// for ever.
    package static func committed(_ flush: @escaping @Sendable () async -> Void, sourceLocation: SourceLocation = #_sourceLocation) async {
        // Not a task group: it would wait for a flush that never returns.
        let (outcomes, outcome) = AsyncStream.makeStream(of: Bool.self)
        Task {
            await flush()
            outcome.yield(true)
        }
        // Bounded as every wait for an event is (TestDeadline): 20 s was too short for a flush
        // under a busy disk, where each commit's sync waits its turn.
        let timer = Task {
            try? await Task.sleep(for: TestDeadline.hang)
            outcome.yield(false)
        }
        var next = outcomes.makeAsyncIterator()
        let done = await next.next() ?? false
        timer.cancel()
        if !done {
            Issue.record(
                "the store did not commit what was recorded within \(TestDeadline.hang) (its writes keep failing)", sourceLocation: sourceLocation)
        }
    }
}

/// The delivery every store test records: its fields differ by `index`, and the third names a fault.
package enum SampleDelivery {
    package static func make(_ index: Int, outcome: Delivery.Outcome = .accepted, token: String = "abcd") -> Delivery {
        Delivery(
            receivedAt: 1_767_225_600_000 + Int64(index), connectionID: 7, httpVersion: "HTTP/2", service: .apns, environment: "sandbox",
            method: "POST", path: "/3/device/\(token)",
            headers: [
                HeaderField(name: "apns-topic", value: "com.example.app"), HeaderField(name: "x-dup", value: "é"),
                HeaderField(name: "x-dup", value: "2"),
            ],
            body: Array(#"{"aps":{"alert":"\#(index)"}}"#.utf8), bodyIsJSON: true, identity: "T/K", pushType: "alert", topic: "com.example.app",
            deviceToken: token, apnsID: "ID-\(index)", outcome: outcome, status: outcome == .accepted ? 200 : 400,
            reason: outcome == .accepted ? nil : "BadTopic", explanation: nil, diagnostics: ["d\(index)"], fault: index == 3 ? "f" : nil
        )
    }
}

extension Delivery {
    /// This delivery with the id a store would have given it.
    package func with(id: UInt64) -> Delivery {
        var copy = self
        copy.id = id
        return copy
    }
}
