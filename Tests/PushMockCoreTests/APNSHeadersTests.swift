import Testing

@testable import PushMockCore

/// The APNs request headers read in one pass: by the known name the HTTP/2 transport tagged a
/// field with, or by its name's text for a field it did not look up, with the same result.
@Suite("APNs: the request headers read by tag or by name")
struct APNSHeadersTests {
    /// `fields` as the HTTP/2 transport hands them over: each tagged with its known name.
    static func tagged(_ fields: [HeaderField]) -> [HeaderField] {
        fields.map { field in
            let known = KnownHeaderName.allCases.first { $0.text?.description == field.name } ?? .other
            return HeaderField(name: field.name, value: field.value, knownName: known)
        }
    }

    static func read(_ headers: APNSHeaders) -> [String?] {
        [
            headers.apnsID, headers.expiration, headers.priority, headers.topic, headers.pushType, headers.collapseID, headers.authorization,
            headers.duplicate,
        ]
    }

    @Test("each of the seven headers, a repeated one, and others ignored: the same whether the fields are tagged or not")
    func taggedAndUntagged() {
        let lists: [[HeaderField]] = [
            [
                HeaderField(name: "apns-id", value: "6A1F0B56-3E4A-4D2B-9C55-0F3C2D1E4B7A"), HeaderField(name: "apns-expiration", value: "0"),
                HeaderField(name: "apns-priority", value: "10"), HeaderField(name: "apns-topic", value: "com.example.app"),
                HeaderField(name: "apns-push-type", value: "alert"), HeaderField(name: "apns-collapse-id", value: "order"),
                HeaderField(name: "authorization", value: "bearer eyJ.one"), HeaderField(name: "x-custom", value: "1"),
                HeaderField(name: "content-length", value: "300"),
            ],
            [
                HeaderField(name: "apns-topic", value: "com.example.app"), HeaderField(name: "apns-priority", value: "5"),
                HeaderField(name: "apns-topic", value: "com.example.other"), HeaderField(name: "apns-priority", value: "10"),
            ],
            [HeaderField(name: "apns-topics", value: "x"), HeaderField(name: "apns-i", value: "y"), HeaderField(name: "Authorization", value: "z")],
        ]
        let expected: [[String?]] = [
            ["6A1F0B56-3E4A-4D2B-9C55-0F3C2D1E4B7A", "0", "10", "com.example.app", "alert", "order", "bearer eyJ.one", nil],
            [nil, nil, "10", "com.example.other", nil, nil, nil, "apns-topic"],
            [nil, nil, nil, nil, nil, nil, nil, nil],
        ]
        for (fields, expected) in zip(lists, expected) {
            #expect(Self.read(APNSHeaders(fields)) == expected)
            #expect(Self.read(APNSHeaders(Self.tagged(fields))) == expected, "tagged")
        }
    }

    @Test("a field's known name is not part of its identity: equal and hashed alike however it was made")
    func tagIsNotIdentity() {
        let plain = HeaderField(name: "apns-id", value: "1")
        let tagged = HeaderField(name: "apns-id", value: "1", knownName: .apnsID)
        #expect(plain == tagged)
        #expect(plain.hashValue == tagged.hashValue)
        #expect(Set([plain, tagged]).count == 1)
        #expect(plain != HeaderField(name: "apns-id", value: "2", knownName: .apnsID))
        #expect(plain != HeaderField(name: "apns-id", value: "1", neverIndex: true))
    }
}
