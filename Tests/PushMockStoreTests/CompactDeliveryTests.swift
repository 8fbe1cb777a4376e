import PushMockCore
import PushMockStore
import PushMockTestSupport
import Testing

/// The memory store's compact form: every field comes back as it was, and what a connection's
/// deliveries have in common is kept once.
@Suite("The memory store's compact deliveries")
struct CompactDeliveryTests {
    static func apns(
        _ index: Int, token: String = "a1b2c3", apnsID: String? = "6A1F0B56-3E4A-4D2B-9C55-0F3C2D1E4B7A", auth: String = "bearer eyJ.one"
    ) -> Delivery {
        Delivery(
            receivedAt: 1_767_225_600_000 + Int64(index), connectionID: 42, httpVersion: "2", service: .apns, environment: "development",
            method: "POST", path: "/3/device/\(token)",
            headers: [
                HeaderField(name: "apns-topic", value: "com.example.app"), HeaderField(name: "authorization", value: auth),
                HeaderField(name: "apns-id", value: "id-\(index)"), HeaderField(name: "content-length", value: "\(100 + index)"),
                HeaderField(name: "apns-push-type", value: "alert"),
            ],
            body: Array(#"{"aps":{"alert":"\#(index)"}}"#.utf8), bodyIsJSON: true, identity: "TEAM/KEY", pushType: "alert", topic: "com.example.app",
            deviceToken: token, apnsID: apnsID, outcome: .accepted, status: 200, reason: nil, explanation: nil, diagnostics: [], fault: nil
        )
    }

    static func roundTrip(_ delivery: Delivery) -> Delivery {
        CompactDelivery.pack(delivery) { shared, own in
            var packed = CompactDelivery(CompactDelivery.Fixed(delivery), shared: SharedDeliveryFields(shared), own: own)
            packed.id = delivery.id
            return packed.unpack()
        }
    }

    /// Every field, as text: `Delivery` is not `Equatable`, its description lists them all.
    static func same(_ left: Delivery, _ right: Delivery) -> Bool {
        String(describing: left) == String(describing: right)
    }

    @Test("every field comes back: derived paths, apns-ids or none, volatile headers (past 64 too), long and odd strings, other services")
    func roundTrips() {
        var cases: [Delivery] = [
            Self.apns(1),
            Self.apns(2, apnsID: "6a1f0b56-3e4a-4d2b-9c55-0f3c2d1e4b7a"),
            Self.apns(3, apnsID: "6a1f0b56-3E4A-4d2b-9c55-0f3c2d1e4b7a"),
            Self.apns(4, apnsID: "not-a-uuid"),
            Self.apns(5, apnsID: nil),
            Self.apns(6, token: ""),
        ]
        var many = Self.apns(9)
        many.headers += (0..<70).map { HeaderField(name: $0 % 2 == 0 ? "apns-id" : "x-\($0)", value: "v\($0)") }
        cases.append(many)
        var other = Self.apns(7, token: "ABCD")
        other.path = "/3/device/abcd"  // not the token's bytes: kept as it was
        cases.append(other)
        var long = Self.apns(8, token: String(repeating: "f", count: 200))
        long.explanation = String(repeating: "é", count: 9_000)  // 18 000 bytes: a three-byte length
        long.diagnostics = ["one", "", String(repeating: "x", count: 130)]
        long.reason = "BadDeviceToken"
        long.outcome = .rejected
        long.status = 400
        long.fault = "fault-1"
        long.body = []
        long.bodyIsJSON = false
        cases.append(long)
        var fcm = Delivery(
            receivedAt: 5, connectionID: 3, httpVersion: "1.1", service: .fcm, environment: nil, method: "POST",
            path: "/v1/projects/demo/messages:send",
            headers: [
                HeaderField(name: "Authorization", value: "Bearer ya29"), HeaderField(name: "x-dup", value: "1"),
                HeaderField(name: "x-dup", value: ""),
            ],
            body: Array("{}".utf8), bodyIsJSON: true, identity: nil, pushType: "liveactivity", topic: "news", deviceToken: nil, apnsID: nil,
            outcome: .dropped, status: 200, reason: "LiveActivityOlderThanCurrentContent", explanation: "older", diagnostics: ["d"], fault: nil,
            project: "demo"
        )
        fcm.activityID = "act-1"
        fcm.issuedActivityToken = "ffee"
        fcm.recipients = ["t1", "t2"]
        cases.append(fcm)
        fcm.recipients = []
        cases.append(fcm)
        var custom = fcm
        custom.service = Delivery.Service(rawValue: "custom")
        custom.recipients = nil
        cases.append(custom)
        for (index, delivery) in cases.enumerated() {
            var numbered = delivery
            numbered.id = UInt64(index + 1)
            let back = Self.roundTrip(numbered)
            #expect(Self.same(back, numbered), "case \(index): \(back) != \(numbered)")
        }
    }

    @Test("exactly the headers whose value is new on every push are volatile: near misses of the same length and first letter are not")
    func volatileNames() {
        let volatile = [
            "date", "apns-id", "baggage", "tracestate", "traceparent", "x-request-id", "x-b3-traceid", "sentry-trace", "content-length",
            "apns-expiration", "apns-request-id", "x-amzn-trace-id", "apns-collapse-id", "x-cloud-trace-context",
        ]
        for name in volatile { #expect(CompactDelivery.isVolatile(name), "\(name)") }
        let shared = [
            "", "d", "dat", "datf", "dates", "apns-ix", "bagagge", "tracestatx", "traceparenx", "x-request-ix", "sentry-tracx", "content-lengtx",
            "apns-expiratioN", "apns-request-ix", "x-amzn-trace-ix", "apns-collapse-ix", "x-cloud-trace-contexx", "apns-topic", "apns-push-type",
            "apns-priority", "authorization", "user-agent", "content-type", "Date",
        ]
        for name in shared { #expect(!CompactDelivery.isVolatile(name), "\(name)") }
    }

    @Test("each known service's code is its place in Service.all plus one; any other service is 0")
    func serviceCodes() {
        #expect(Delivery.Service.all.map { CompactDelivery.code(of: $0) } == Array(1...UInt8(Delivery.Service.all.count)))
        for other in ["", "apn", "apnS", "fcn", "iie", "oauth2", "broadcasT", "webpusH", "web-push"] {
            #expect(CompactDelivery.code(of: Delivery.Service(rawValue: other)) == 0, "\(other)")
        }
    }

    @Test("a field the transport tagged is volatile exactly when its name is; an untagged field is judged by its name")
    func volatileTags() {
        for known in KnownHeaderName.allCases {
            guard let text = known.text?.description else { continue }
            let tagged = HeaderField(name: text, value: "1", knownName: known)
            #expect(CompactDelivery.isVolatile(tagged) == CompactDelivery.isVolatile(text), "\(text)")
            #expect(CompactDelivery.isVolatile(HeaderField(name: text, value: "1")) == CompactDelivery.isVolatile(text), "\(text), untagged")
        }
        #expect(CompactDelivery.isVolatile(HeaderField(name: "apns-id", value: "1")))
        #expect(!CompactDelivery.isVolatile(HeaderField(name: "x-custom", value: "1", knownName: .other)))
    }

    @Test("a path is derived from the token only when it is /3/device/ and exactly the token's bytes")
    func devicePaths() {
        let token = String(repeating: "a1", count: 32)
        let lastChanged = String(token.dropLast()) + "2"
        for token in [token, "ab", "", String(repeating: "f", count: 200), "é✓"] {
            #expect(CompactDelivery.isDevicePath("/3/device/" + token, token: token), "\(token)")
        }
        let misses: [(path: String, token: String)] = [
            ("/3/device/" + lastChanged, token), ("/3/device/" + token, lastChanged), ("/3/devicE/" + token, token),
            ("/4/device/" + token, token), ("3/device/" + token + "x", token), ("/3/device/" + token.uppercased(), token),
            ("/3/device/" + token + "/", token), ("/3/device/" + token, token + "/"), ("/3/device/ab", "ba"), ("/3/device", ""),
            ("/3/device/a", ""),
        ]
        for (path, token) in misses { #expect(!CompactDelivery.isDevicePath(path, token: token), "\(path) \(token)") }
    }

    @Test("bytes not written by the packer (random, truncated, huge counts) decode as damaged, never past their end")
    func damagedBytes() {
        var generator = SystemRandomNumberGenerator()
        let good = Self.apns(1)
        var damaged = 0
        CompactDelivery.pack(good) { shared, own in
            // Truncations of a real record, and counts of 2^63 and more.
            for cut in 0..<own.count {
                let packed = CompactDelivery(CompactDelivery.Fixed(good), shared: SharedDeliveryFields(shared), own: Array(own.prefix(cut)))
                if !packed.unpackChecked().intact { damaged += 1 }
            }
            let huge: [UInt8] = Array(repeating: 0xFF, count: 12) + [0x7F]
            for bytes in [huge, [0x05, 0x41], own.map { $0 | 0x80 }] {
                let packed = CompactDelivery(CompactDelivery.Fixed(good), shared: SharedDeliveryFields(shared), own: bytes)
                #expect(!packed.unpackChecked().intact)
            }
            #expect(CompactDelivery(CompactDelivery.Fixed(good), shared: SharedDeliveryFields(shared), own: own).unpackChecked().intact)
        }
        #expect(damaged > 0)
        for _ in 0..<20_000 {
            let length = Int.random(in: 0..<64, using: &generator)
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = CompactDelivery(CompactDelivery.Fixed(good), shared: SharedDeliveryFields(bytes: bytes), own: bytes.reversed()).unpackChecked()
            _ = PackedDelivery(id: 1, receivedAt: 0, connectionID: 0, status: 200, outcome: .accepted, service: .apns, bodyIsJSON: true, arena: bytes)
                .unpackChecked()
        }
        let whole = PackedDelivery(good)
        #expect(whole.unpackChecked().intact)
        #expect(
            !PackedDelivery(
                id: 1, receivedAt: 0, connectionID: 0, status: 200, outcome: .accepted, service: .apns, bodyIsJSON: true,
                arena: Array(whole.arena.dropLast(3))
            ).unpackChecked().intact)
        #expect(
            !PackedDelivery(
                id: 1, receivedAt: 0, connectionID: 0, status: 200, outcome: .accepted, service: .apns, bodyIsJSON: true,
                arena: Array(repeating: 0xFE, count: 64)
            ).unpackChecked().intact)
    }

    @Test("a connection's deliveries share their headers even when apns-id, content-length, body and token differ; another provider token does not")
    func sharing() {
        func shared(_ delivery: Delivery) -> [UInt8] {
            CompactDelivery.pack(delivery) { shared, _ in Array(shared) }
        }
        func own(_ delivery: Delivery) -> Int {
            CompactDelivery.pack(delivery) { _, own in own.count }
        }
        #expect(shared(Self.apns(1)) == shared(Self.apns(2, token: "ffff")))
        #expect(shared(Self.apns(1)) != shared(Self.apns(1, auth: "bearer eyJ.two")))
        // The own part holds the body, the token once (the path is derived), the apns-id and the volatile headers.
        let first = Self.apns(1)
        let expected = first.body.count + 1 + 1 + (first.deviceToken!.utf8.count + 1) + 1 + 37
        #expect(own(first) < expected + 30, "own part \(own(first)) bytes")
    }

    @Test("the memory store gives back each delivery with its own volatile values while sharing the rest")
    func storeSharing() async throws {
        let store = InMemoryDeliveryStore(retention: 100)
        var originals: [UInt64: Delivery] = [:]
        for index in 0..<20 {
            var delivery = Self.apns(index, token: index % 3 == 0 ? "aa" : "bb", auth: index % 5 == 0 ? "bearer eyJ.two" : "bearer eyJ.one")
            delivery.connectionID = UInt64(index % 2)
            let id = store.record(delivery)
            delivery.id = id
            originals[id] = delivery
        }
        let page = try await store.query(DeliveryFilter(), limit: 100)
        #expect(page.total == 20)
        for delivery in page.deliveries {
            let original = try #require(originals[delivery.id])
            #expect(Self.same(delivery, original), "\(delivery) != \(original)")
        }
    }
}
