import Testing

@testable import PushMockTransport

/// The comparison that decides whether a received field equals the one a pooled stream kept.
@Suite("Comparing a received field with the kept one")
struct FieldComparisonTests {
    static func same(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        precondition(a.count == b.count)
        return a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                // Never called with no bytes: the caller answers for an empty field first.
                guard let left = a.baseAddress, let right = b.baseAddress else { return true }
                return NGHTTP2Stream.same(left, right, a.count)
            }
        }
    }

    @Test("every length to 40 (bytes, words, the overlapping last word, memcmp): equal, and a difference at every offset")
    func everyLengthAndOffset() {
        for count in 1...40 {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            #expect(Self.same(bytes, bytes), "length \(count)")
            for offset in 0..<count {
                var other = bytes
                other[offset] ^= 0x20
                #expect(!Self.same(bytes, other), "length \(count), differing at \(offset)")
            }
        }
    }

    /// `stream` takes the field `name: value` as nghttp2's header callback hands it over.
    static func receive(_ name: String, _ value: String, on stream: NGHTTP2Stream, recent: RecentHeaderValues) {
        Array(name.utf8).withUnsafeBufferPointer { name in
            Array(value.utf8).withUnsafeBufferPointer { value in stream.receiveField(name: name, value: value, recent: recent) }
        }
    }

    @Test("a field received twice is kept, and a changed one replaced, through the stream")
    func throughTheStream() {
        let stream = NGHTTP2Stream()
        let recent = RecentHeaderValues()
        func receive(_ name: String, _ value: String) { Self.receive(name, value, on: stream, recent: recent) }
        receive("apns-topic", "com.example.app.push-type.liveactivity")
        receive("apns-collapse-id", "order-A1B2C3-shipped")
        receive("apns-priority", "10")
        #expect(stream.takeRequest().headers.fields.map(\.value) == ["com.example.app.push-type.liveactivity", "order-A1B2C3-shipped", "10"])
        receive("apns-topic", "com.example.app.push-type.liveactivitx")
        receive("apns-collapse-id", "order-A1B2C3-shippee")
        receive("apns-priority", "5")
        #expect(stream.takeRequest().headers.fields.map(\.value) == ["com.example.app.push-type.liveactivitx", "order-A1B2C3-shippee", "5"])
        receive("apns-topic", "com.example.app.push-type.liveactivitx")
        receive("apns-collapse-id", "order-A1B2C3-shippee")
        receive("apns-priority", "5")
        #expect(stream.takeRequest().headers.fields.map(\.value) == ["com.example.app.push-type.liveactivitx", "order-A1B2C3-shippee", "5"])
    }

    @Test("a received field carries the known name the transport found, in a kept place too when another name takes it")
    func knownNamesThroughTheStream() {
        let stream = NGHTTP2Stream()
        let recent = RecentHeaderValues()
        func receive(_ name: String, _ value: String) { Self.receive(name, value, on: stream, recent: recent) }
        receive("apns-topic", "com.example.app")
        receive("x-custom", "1")
        receive("apns-id", "6A1F0B56-3E4A-4D2B-9C55-0F3C2D1E4B7A")
        #expect(stream.takeRequest().headers.fields.map(\.knownName) == [.apnsTopic, .other, .apnsID])
        // The same places, other names: each place's name and its tag are replaced together.
        receive("x-custom", "com.example.app")
        receive("apns-priority", "1")
        receive("apns-id", "6A1F0B56-3E4A-4D2B-9C55-0F3C2D1E4B7B")
        let request = stream.takeRequest()
        #expect(request.headers.fields.map(\.knownName) == [.other, .apnsPriority, .apnsID])
        #expect(request.headers[known: .apnsPriority] == "1")
        #expect(request.headers[known: .apnsTopic] == nil)
    }
}
