import PushMockBytes
package import PushMockCore

/// A delivery as the store keeps it: the numbers inline and every string and byte in one array.
/// Recording copies bytes instead of retaining a dozen objects, and evicting an old delivery frees
/// one block instead of touching a dozen cold ones.
package struct PackedDelivery {
    package var id: UInt64
    package var receivedAt: Int64
    package var connectionID: UInt64
    package var status: Int
    package var outcome: Delivery.Outcome
    package var service: Delivery.Service
    package var bodyIsJSON: Bool
    package var arena: [UInt8]

    fileprivate static let absent = UInt32.max
    /// How many strings come before the headers (httpVersion … issuedActivityToken).
    private static let stringFields = 15

    /// A delivery as read back from storage.
    package init(
        id: UInt64, receivedAt: Int64, connectionID: UInt64, status: Int, outcome: Delivery.Outcome, service: Delivery.Service, bodyIsJSON: Bool,
        arena: [UInt8]
    ) {
        self.id = id
        self.receivedAt = receivedAt
        self.connectionID = connectionID
        self.status = status
        self.outcome = outcome
        self.service = service
        self.bodyIsJSON = bodyIsJSON
        self.arena = arena
    }

    package init(_ delivery: Delivery) {
        id = delivery.id
        receivedAt = delivery.receivedAt
        connectionID = delivery.connectionID
        status = delivery.status
        outcome = delivery.outcome
        service = delivery.service
        bodyIsJSON = delivery.bodyIsJSON
        // The exact size first, then one allocation filled by memcpy: no per-byte append, no growth,
        // and no array of the strings (which would retain each).
        func utf8(_ string: String?) -> Int { string?.utf8.count ?? 0 }
        var size = 4 * Self.stringFields + 4 + 4 + 4 + delivery.body.count
        size += utf8(delivery.httpVersion) + utf8(delivery.environment) + utf8(delivery.method) + utf8(delivery.path) + utf8(delivery.identity)
        size += utf8(delivery.pushType) + utf8(delivery.topic) + utf8(delivery.deviceToken) + utf8(delivery.apnsID) + utf8(delivery.reason)
        size +=
            utf8(delivery.explanation) + utf8(delivery.fault) + utf8(delivery.project) + utf8(delivery.activityID)
            + utf8(delivery.issuedActivityToken)
        for field in delivery.headers { size += 8 + field.name.utf8.count + field.value.utf8.count }
        for diagnostic in delivery.diagnostics { size += 4 + diagnostic.utf8.count }
        if let recipients = delivery.recipients {
            size += 4
            for token in recipients { size += 4 + token.utf8.count }
        }
        arena = [UInt8](capacity: size) { writer in
            Self.put(delivery.httpVersion, to: &writer)
            Self.put(delivery.environment, to: &writer)
            Self.put(delivery.method, to: &writer)
            Self.put(delivery.path, to: &writer)
            Self.put(delivery.identity, to: &writer)
            Self.put(delivery.pushType, to: &writer)
            Self.put(delivery.topic, to: &writer)
            Self.put(delivery.deviceToken, to: &writer)
            Self.put(delivery.apnsID, to: &writer)
            Self.put(delivery.reason, to: &writer)
            Self.put(delivery.explanation, to: &writer)
            Self.put(delivery.fault, to: &writer)
            Self.put(delivery.project, to: &writer)
            Self.put(delivery.activityID, to: &writer)
            Self.put(delivery.issuedActivityToken, to: &writer)
            Self.putLength(UInt32(delivery.headers.count), to: &writer)
            for field in delivery.headers {
                Self.put(field.name, to: &writer)
                Self.put(field.value, to: &writer)
            }
            Self.putLength(UInt32(delivery.diagnostics.count), to: &writer)
            for diagnostic in delivery.diagnostics { Self.put(diagnostic, to: &writer) }
            Self.putLength(UInt32(delivery.body.count), to: &writer)
            writer.put(delivery.body)
            // Added after the body, so records written before it existed still read (as nil).
            if let recipients = delivery.recipients {
                Self.putLength(UInt32(recipients.count), to: &writer)
                for token in recipients { Self.put(token, to: &writer) }
            }
            precondition(writer.count == size, "packed \(writer.count) bytes into \(size)")
        }
    }

    /// A length, four bytes little-endian.
    private static func putLength(_ value: UInt32, to writer: inout ByteWriter) {
        for shift in stride(from: UInt32(0), to: 32, by: 8) { writer.put(UInt8(truncatingIfNeeded: value >> shift)) }
    }

    /// A string as its length and UTF-8 (``absent`` for nil).
    private static func put(_ value: String?, to writer: inout ByteWriter) {
        guard let value else { return putLength(absent, to: &writer) }
        putLength(UInt32(value.utf8.count), to: &writer)
        writer.put(utf8: value)
    }

    /// The delivery, rebuilt. (Bytes that do not decode give what could be read: see
    /// ``unpackChecked()``.)
    package func unpack() -> Delivery {
        unpackChecked().delivery
    }

    /// The delivery, rebuilt, and whether its bytes decoded: every length is checked against the
    /// bytes there are, so a damaged or hostile record is reported, never read past its end.
    package func unpackChecked() -> (delivery: Delivery, intact: Bool) {
        arena.withByteView { bytes in
            var reader = Reader(bytes: bytes)
            func string() -> String? { reader.string() }
            func count() -> Int { reader.count() }
            let httpVersion = string() ?? ""
            let environment = string()
            let method = string() ?? ""
            let path = string() ?? ""
            let identity = string()
            let pushType = string()
            let topic = string()
            let deviceToken = string()
            let apnsID = string()
            let reason = string()
            let explanation = string()
            let fault = string()
            let project = string()
            let activityID = string()
            let issuedActivityToken = string()
            let headerCount = count()
            var headers: [HeaderField] = []
            headers.reserveCapacity(headerCount)
            for _ in 0..<headerCount where !reader.failed {
                let name = string() ?? ""
                headers.append(HeaderField(name: name, value: string() ?? ""))
            }
            let diagnosticCount = count()
            var diagnostics: [String] = []
            for _ in 0..<diagnosticCount where !reader.failed {
                diagnostics.append(string() ?? "")
            }
            let body = Array(reader.take(Int(reader.length())))
            var recipients: [String]?
            if !reader.failed, reader.offset + 4 <= bytes.count {
                let count = count()
                var tokens: [String] = []
                tokens.reserveCapacity(count)
                for _ in 0..<count where !reader.failed {
                    tokens.append(string() ?? "")
                }
                recipients = tokens
            }
            var delivery = Delivery(
                receivedAt: receivedAt, connectionID: connectionID, httpVersion: httpVersion, service: service,
                environment: environment, method: method, path: path, headers: headers, body: body, bodyIsJSON: bodyIsJSON,
                identity: identity, pushType: pushType, topic: topic, deviceToken: deviceToken, apnsID: apnsID,
                outcome: outcome, status: status, reason: reason, explanation: explanation, diagnostics: diagnostics, fault: fault,
                project: project
            )
            delivery.id = id
            delivery.activityID = activityID
            delivery.issuedActivityToken = issuedActivityToken
            delivery.recipients = recipients
            return (delivery, !reader.failed)
        }
    }

    /// Reads a record's lengths, counts and strings, each checked against the bytes there are:
    /// past the end, it reads nothing more and is `failed`.
    private struct Reader {
        let bytes: ByteView
        var offset = 0
        var failed = false

        init(bytes: ByteView) {
            self.bytes = bytes
        }

        mutating func length() -> UInt32 {
            guard !failed, bytes.count - offset >= 4 else {
                failed = true
                return 0
            }
            let value = UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
            offset += 4
            return value
        }

        /// A count of things that take at least 4 bytes each.
        mutating func count() -> Int {
            let value = Int(length())
            guard value <= (bytes.count - offset) / 4 else {
                failed = true
                return 0
            }
            return value
        }

        mutating func take(_ count: Int) -> ArraySlice<UInt8> {
            guard !failed, count <= bytes.count - offset else {
                failed = true
                return []
            }
            defer { offset += count }
            return ArraySlice(bytes.view(offset..<(offset + count)))
        }

        mutating func string() -> String? {
            let count = length()
            guard count != PackedDelivery.absent else { return nil }
            guard !failed, Int(count) <= bytes.count - offset else {
                failed = true
                return nil
            }
            let text = bytes.view(offset..<(offset + Int(count))).string
            offset += Int(count)
            return text
        }
    }
}
