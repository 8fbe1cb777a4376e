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

    /// A delivery as read back from storage.
    package init(id: UInt64, receivedAt: Int64, connectionID: UInt64, status: Int, outcome: Delivery.Outcome, service: Delivery.Service, bodyIsJSON: Bool, arena: [UInt8]) {
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
        var size = delivery.body.count + delivery.path.utf8.count + (delivery.explanation?.utf8.count ?? 0) + 512
        for field in delivery.headers {
            size += field.name.utf8.count + field.value.utf8.count + 8
        }
        for diagnostic in delivery.diagnostics {
            size += diagnostic.utf8.count + 4
        }
        var writer = ArenaWriter(capacity: size)
        writer.put(delivery.httpVersion)
        writer.put(delivery.environment)
        writer.put(delivery.method)
        writer.put(delivery.path)
        writer.put(delivery.identity)
        writer.put(delivery.pushType)
        writer.put(delivery.topic)
        writer.put(delivery.deviceToken)
        writer.put(delivery.apnsID)
        writer.put(delivery.reason)
        writer.put(delivery.explanation)
        writer.put(delivery.fault)
        writer.put(delivery.project)
        writer.put(delivery.activityID)
        writer.put(delivery.issuedActivityToken)
        writer.putLength(UInt32(delivery.headers.count))
        for field in delivery.headers {
            writer.put(field.name)
            writer.put(field.value)
        }
        writer.putLength(UInt32(delivery.diagnostics.count))
        for diagnostic in delivery.diagnostics {
            writer.put(diagnostic)
        }
        writer.putLength(UInt32(delivery.body.count))
        writer.bytes.append(contentsOf: delivery.body)
        // Added after the body, so records written before it existed still read (as nil).
        if let recipients = delivery.recipients {
            writer.putLength(UInt32(recipients.count))
            for token in recipients {
                writer.put(token)
            }
        }
        let arena = writer.bytes
        self.arena = arena
    }

    /// Appends length-prefixed fields (no closures, so no dynamic exclusivity checks).
    private struct ArenaWriter {
        var bytes: [UInt8]

        init(capacity: Int) {
            bytes = []
            bytes.reserveCapacity(capacity)
        }

        mutating func putLength(_ value: UInt32) {
            bytes.append(UInt8(truncatingIfNeeded: value))
            bytes.append(UInt8(truncatingIfNeeded: value >> 8))
            bytes.append(UInt8(truncatingIfNeeded: value >> 16))
            bytes.append(UInt8(truncatingIfNeeded: value >> 24))
        }

        mutating func put(_ value: String?) {
            guard let value else {
                putLength(PackedDelivery.absent)
                return
            }
            putLength(UInt32(value.utf8.count))
            bytes.append(contentsOf: value.utf8)
        }
    }

    /// The delivery, rebuilt.
    package func unpack() -> Delivery {
        arena.withUnsafeBufferPointer { bytes in
            var offset = 0
            func length() -> UInt32 {
                let value = UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
                offset += 4
                return value
            }
            func string() -> String? {
                let count = length()
                guard count != Self.absent else { return nil }
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[offset..<(offset + Int(count))]), as: UTF8.self)
                offset += Int(count)
                return text
            }
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
            let headerCount = Int(length())
            var headers: [HeaderField] = []
            headers.reserveCapacity(headerCount)
            for _ in 0..<headerCount {
                let name = string() ?? ""
                headers.append(HeaderField(name: name, value: string() ?? ""))
            }
            let diagnosticCount = Int(length())
            var diagnostics: [String] = []
            for _ in 0..<diagnosticCount {
                diagnostics.append(string() ?? "")
            }
            let bodyCount = Int(length())
            let body = Array(bytes[offset..<(offset + bodyCount)])
            offset += bodyCount
            var recipients: [String]?
            if offset + 4 <= bytes.count {
                let count = Int(length())
                var tokens: [String] = []
                tokens.reserveCapacity(count)
                for _ in 0..<count {
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
            return delivery
        }
    }
}
