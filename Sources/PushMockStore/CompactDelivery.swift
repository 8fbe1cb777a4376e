package import PushMockBytes
package import PushMockCore

/// What a connection's deliveries usually have in common, kept once and shared: the sender's
/// headers (the provider token or bearer, topic, push type, priority…) and the strings that name
/// the sender. A header whose value changes from push to push (``CompactDelivery/isVolatile(_:)``)
/// is kept with each delivery instead, so that it does not stop the rest from being shared.
package final class SharedDeliveryFields: Sendable {
    package let bytes: [UInt8]

    package init(_ bytes: ByteView) {
        self.bytes = bytes.array
    }

    /// Fields read back from storage.
    package init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Whether these are `bytes`.
    package func equals(_ bytes: ByteView) -> Bool {
        self.bytes.withByteView { $0.equals(bytes) }
    }
}

/// A delivery as the memory store keeps it: the numbers inline, what it shares with its
/// connection's other deliveries in one ``SharedDeliveryFields``, and the rest in one byte array
/// with variable-length lengths. An APNs path that is `/3/device/` and the device token is not kept
/// twice. (The lasting stores keep the same two parts, the shared one once per connection and
/// change in a table of their own; rows they wrote before keep a ``PackedDelivery``.)
package struct CompactDelivery: Sendable {
    package var id: UInt64
    package let receivedAt: Int64
    package let connectionID: UInt64
    let status: Int32
    let outcome: Delivery.Outcome
    /// 1…6: a known service (``Delivery/Service/all``, whose order only grows); 0: the name is the first field of `own`.
    let serviceCode: UInt8
    let bodyIsJSON: Bool
    package let shared: SharedDeliveryFields
    let own: OwnBytes

    static let apnsDevicePath: StaticString = "/3/device/"

    /// Packs `delivery`: its shared fields are built in temporary memory and handed to `keep`
    /// with the rest (already packed), which returns what it makes of them.
    package static func pack<R>(_ delivery: Delivery, _ keep: (_ shared: ByteView, _ own: [UInt8]) throws -> R) rethrows -> R {
        let layout = Layout(delivery)
        let own = [UInt8](capacity: layout.ownSize) { layout.writeOwn(delivery, to: &$0) }
        return try layout.withShared(delivery) { try keep($0, own) }
    }

    /// How a delivery packs: the sizes of its two parts and which headers go with its own part.
    /// A store that keeps the own part in memory of its own writes it there with ``writeOwn(_:to:)``.
    package struct Layout {
        /// Bytes of the own part.
        package let ownSize: Int
        /// Which headers are volatile, one bit each (a list longer than 64 keeps the rest shared).
        let volatile: UInt64
        let serviceCode: UInt8
        /// Whether the path is `/3/device/` and the device token (not kept twice).
        let derivedPath: Bool

        package init(_ delivery: borrowing Delivery) {
            // The shared part's size is left to ``withShared``: most deliveries share what their
            // connection's last one did (``SharedSlots``) and never pack it.
            var ownSize = 0
            serviceCode = code(of: delivery.service)
            if serviceCode == 0 { ownSize += VarBytes.size(delivery.service.rawValue) }
            var volatile: UInt64 = 0
            for (index, field) in delivery.headers.enumerated() {
                if index == 64 { break }
                if isVolatile(field) {
                    volatile |= 1 << UInt64(index)
                    ownSize += VarBytes.size(field.value)
                }
            }
            derivedPath = delivery.deviceToken.map { isDevicePath(delivery.path, token: $0) } ?? false
            ownSize += 1 + (derivedPath ? 0 : VarBytes.size(delivery.path))
            ownSize += VarBytes.size(delivery.apnsID) + VarBytes.size(delivery.deviceToken) + VarBytes.size(delivery.reason)
            ownSize += VarBytes.size(delivery.explanation) + VarBytes.size(delivery.fault) + VarBytes.size(delivery.activityID)
            ownSize += VarBytes.size(delivery.issuedActivityToken) + VarBytes.size(delivery.diagnostics.count)
            for diagnostic in delivery.diagnostics { ownSize += VarBytes.size(diagnostic) }
            ownSize += VarBytes.size(delivery.body.count) + delivery.body.count
            ownSize += VarBytes.size(delivery.recipients.map { $0.count + 1 } ?? 0)
            for token in delivery.recipients ?? [] { ownSize += VarBytes.size(token) }
            self.ownSize = ownSize
            self.volatile = volatile
        }

        /// Writes the own part of `delivery` (the one this layout was made from) with `writer`,
        /// which has room for ``ownSize`` bytes.
        package func writeOwn(_ delivery: borrowing Delivery, to writer: inout ByteWriter) {
            let start = writer.count
            if serviceCode == 0 { writer.putString(delivery.service.rawValue) }
            if derivedPath {
                writer.put(UInt8(1))
            } else {
                writer.put(UInt8(0))
                writer.putString(delivery.path)
            }
            writer.putString(delivery.apnsID)
            writer.putString(delivery.deviceToken)
            writer.putString(delivery.reason)
            writer.putString(delivery.explanation)
            writer.putString(delivery.fault)
            writer.putString(delivery.activityID)
            writer.putString(delivery.issuedActivityToken)
            var remaining = volatile
            while remaining != 0 {
                writer.putString(delivery.headers[remaining.trailingZeroBitCount].value)
                remaining &= remaining - 1
            }
            writer.putCount(delivery.diagnostics.count)
            for diagnostic in delivery.diagnostics { writer.putString(diagnostic) }
            writer.putCount(delivery.body.count)
            writer.put(delivery.body)
            writer.putCount(delivery.recipients.map { $0.count + 1 } ?? 0)
            for token in delivery.recipients ?? [] { writer.putString(token) }
            precondition(writer.count - start == ownSize, "packed \(writer.count - start) bytes into \(ownSize)")
        }

        /// Calls `body` with the shared part of `delivery`, built in temporary memory.
        package func withShared<R>(_ delivery: borrowing Delivery, _ body: (ByteView) throws -> R) rethrows -> R {
            var sharedSize = VarBytes.size(delivery.httpVersion) + VarBytes.size(delivery.environment) + VarBytes.size(delivery.method)
            sharedSize += VarBytes.size(delivery.identity) + VarBytes.size(delivery.pushType) + VarBytes.size(delivery.topic)
            sharedSize += VarBytes.size(delivery.project) + VarBytes.size(delivery.headers.count)
            for (index, field) in delivery.headers.enumerated() {
                sharedSize += VarBytes.size(field.name)
                // A volatile value is a nil here (one byte); the delivery keeps it.
                sharedSize += index < 64 && volatile & (1 << UInt64(index)) != 0 ? 1 : VarBytes.size(field.value)
            }
            return try withTemporaryBytes(
                capacity: sharedSize,
                writing: { writer in
                    writer.putString(delivery.httpVersion)
                    writer.putString(delivery.environment)
                    writer.putString(delivery.method)
                    writer.putString(delivery.identity)
                    writer.putString(delivery.pushType)
                    writer.putString(delivery.topic)
                    writer.putString(delivery.project)
                    writer.putCount(delivery.headers.count)
                    for (index, field) in delivery.headers.enumerated() {
                        writer.putString(field.name)
                        // A header value is never nil: nil marks one kept with the delivery.
                        writer.putString(index < 64 && volatile & (1 << UInt64(index)) != 0 ? nil : field.value)
                    }
                    precondition(writer.count == sharedSize, "packed \(writer.count) bytes into \(sharedSize)")
                }, body)
        }
    }

    /// The numbers of a delivery, read before it is packed.
    package struct Fixed: Sendable {
        let receivedAt: Int64
        package let connectionID: UInt64
        let status: Int32
        let outcome: Delivery.Outcome
        let serviceCode: UInt8
        let bodyIsJSON: Bool

        package init(_ delivery: borrowing Delivery) {
            receivedAt = delivery.receivedAt
            connectionID = delivery.connectionID
            status = Int32(clamping: delivery.status)
            outcome = delivery.outcome
            serviceCode = CompactDelivery.code(of: delivery.service)
            bodyIsJSON = delivery.bodyIsJSON
        }
    }

    /// A packed delivery (`shared` and `own` from ``pack(_:_:)``).
    package init(_ fixed: Fixed, id: UInt64 = 0, shared: SharedDeliveryFields, own: [UInt8]) {
        self.init(fixed, id: id, shared: shared, own: OwnBytes.copying(own))
    }

    /// A packed delivery whose own part was written in place (``Layout/writeOwn(_:to:)``).
    package init(_ fixed: Fixed, id: UInt64 = 0, shared: SharedDeliveryFields, own: OwnBytes) {
        self.id = id
        receivedAt = fixed.receivedAt
        connectionID = fixed.connectionID
        status = fixed.status
        outcome = fixed.outcome
        serviceCode = fixed.serviceCode
        bodyIsJSON = fixed.bodyIsJSON
        self.shared = shared
        self.own = own
    }

    /// A delivery read back from a store that keeps its numbers in columns of their own and its
    /// two parts as bytes (PostgreSQL).
    package init(
        id: UInt64, receivedAt: Int64, connectionID: UInt64, status: Int, outcome: Delivery.Outcome, service: Delivery.Service,
        bodyIsJSON: Bool, shared: SharedDeliveryFields, own: [UInt8]
    ) {
        self.id = id
        self.receivedAt = receivedAt
        self.connectionID = connectionID
        self.status = Int32(clamping: status)
        self.outcome = outcome
        serviceCode = Self.code(of: service)
        self.bodyIsJSON = bodyIsJSON
        self.shared = shared
        self.own = OwnBytes.copying(own)
    }

    /// Whether `path` is `/3/device/` and `token`'s bytes (the token compared by `memcmp`).
    package static func isDevicePath(_ path: String, token: String) -> Bool {
        let prefix = apnsDevicePath.utf8CodeUnitCount
        guard path.utf8.count == prefix + token.utf8.count else { return false }
        return path.withUTF8View { path in
            path.hasPrefix(apnsDevicePath) && token.withUTF8View { path.view(prefix..<path.count).equalsLong($0) }
        }
    }

    /// The delivery, rebuilt. (Bytes that do not decode give what could be read: see
    /// ``unpackChecked()``.)
    package func unpack() -> Delivery {
        unpackChecked().delivery
    }

    /// The delivery, rebuilt, and whether its bytes decoded: every length is checked against the
    /// bytes there are, so a damaged or hostile record is reported, never read past its end.
    package func unpackChecked() -> (delivery: Delivery, intact: Bool) {
        shared.bytes.withByteView { sharedBytes in
            own.withByteView { ownBytes in
                var common = VarBytes.Reader(sharedBytes)
                var mine = VarBytes.Reader(ownBytes)
                let httpVersion = common.string() ?? ""
                let environment = common.string()
                let method = common.string() ?? ""
                let identity = common.string()
                let pushType = common.string()
                let topic = common.string()
                let project = common.string()
                let service =
                    serviceCode == 0 || Int(serviceCode) > Delivery.Service.all.count
                    ? Delivery.Service(rawValue: mine.string() ?? "") : Delivery.Service.all[Int(serviceCode) - 1]
                let derivedPath = mine.byte() == 1
                let pathText = derivedPath ? nil : mine.string()
                let apnsID = mine.string()
                let deviceToken = mine.string()
                let reason = mine.string()
                let explanation = mine.string()
                let fault = mine.string()
                let activityID = mine.string()
                let issuedActivityToken = mine.string()
                let headerCount = common.count()
                var headers: [HeaderField] = []
                headers.reserveCapacity(headerCount)
                for _ in 0..<headerCount where !common.failed && !mine.failed {
                    let name = common.string() ?? ""
                    headers.append(HeaderField(name: name, value: common.string() ?? mine.string() ?? ""))
                }
                let diagnosticCount = mine.count()
                var diagnostics: [String] = []
                for _ in 0..<diagnosticCount where !mine.failed { diagnostics.append(mine.string() ?? "") }
                let body = mine.take(mine.count()).array
                var recipients: [String]?
                let recipientCount = mine.count(extra: 1)
                if recipientCount > 0 {
                    var tokens: [String] = []
                    for _ in 1..<recipientCount where !mine.failed { tokens.append(mine.string() ?? "") }
                    recipients = tokens
                }
                let path = pathText ?? ("/3/device/" + (deviceToken ?? ""))
                var delivery = Delivery(
                    receivedAt: receivedAt, connectionID: connectionID, httpVersion: httpVersion, service: service,
                    environment: environment, method: method, path: path, headers: headers, body: body, bodyIsJSON: bodyIsJSON,
                    identity: identity, pushType: pushType, topic: topic, deviceToken: deviceToken, apnsID: apnsID,
                    outcome: outcome, status: Int(status), reason: reason, explanation: explanation, diagnostics: diagnostics, fault: fault,
                    project: project
                )
                delivery.id = id
                delivery.activityID = activityID
                delivery.issuedActivityToken = issuedActivityToken
                delivery.recipients = recipients
                return (delivery, !common.failed && !mine.failed)
            }
        }
    }
}

/// Each connection's last shared fields and the id that names them in a lasting store's table of
/// shared fields, in slots by connection id. A delivery's shared fields are named by the slot's id
/// when they are the same, and otherwise by the delivery's own id. Every batch writes (if missing)
/// the shared rows its deliveries name, in its own transaction: a row never names shared fields
/// that are not there, even after unreferenced ones were cleaned up while a slot still named them.
/// (The memory store keeps its shared fields in the same slots and ignores the ids.)
///
/// A slot also remembers what its fields were packed from (``SharedSource``): a connection's next
/// delivery made of the same strings is named without packing its shared part at all.
package struct SharedSlots: Sendable {
    package static let count = 256
    private var slots: [(id: Int64, fields: SharedDeliveryFields)?] = Array(repeating: nil, count: count)
    private var sources: [SharedSource?] = Array(repeating: nil, count: count)

    package init() {}

    /// The id that names the shared part of `delivery` (laid out as `layout`), recorded as the
    /// delivery `deliveryID`, its fields, and whether they are new for the connection.
    package mutating func name(
        _ delivery: borrowing Delivery, layout: CompactDelivery.Layout, id deliveryID: UInt64
    ) -> (id: Int64, fields: SharedDeliveryFields, introduced: Bool) {
        let connectionID = delivery.connectionID
        let slot = Int(truncatingIfNeeded: connectionID) & (Self.count - 1)
        if sources[slot]?.matches(delivery, volatile: layout.volatile) == true, let kept = slots[slot] {
            return (kept.id, kept.fields, false)
        }
        // `connectionID` read before: the closure capturing `delivery` would copy it whole.
        let named = layout.withShared(delivery) { shared in name(shared, connectionID: connectionID, id: deliveryID) }
        sources[slot] = SharedSource(delivery, volatile: layout.volatile)
        return named
    }

    /// The id that names `shared` (the shared part of `delivery`, from ``CompactDelivery/pack(_:_:)``),
    /// its fields, and whether they are new for the connection.
    package mutating func name(_ shared: ByteView, of delivery: Delivery) -> (id: Int64, fields: SharedDeliveryFields, introduced: Bool) {
        name(shared, connectionID: delivery.connectionID, id: delivery.id)
    }

    /// ``name(_:of:)`` for the delivery `deliveryID` of the connection `connectionID`. The slot's
    /// source is forgotten: these bytes may not be what it was packed from.
    package mutating func name(
        _ shared: ByteView, connectionID: UInt64, id deliveryID: UInt64
    ) -> (id: Int64, fields: SharedDeliveryFields, introduced: Bool) {
        let slot = Int(truncatingIfNeeded: connectionID) & (Self.count - 1)
        if let kept = slots[slot], kept.fields.equals(shared) { return (kept.id, kept.fields, false) }
        sources[slot] = nil
        let id = Int64(clamping: deliveryID)
        let fields = SharedDeliveryFields(shared)
        slots[slot] = (id, fields)
        return (id, fields, true)
    }
}

/// The shared rows a batch names, each once, and how many of them it introduced.
package struct SharedRows: Sendable {
    /// After how many introduced shared fields the unreferenced ones are cleaned up, by default:
    /// the cleanup scans what is kept, so it runs at most once per tenth of `retention`.
    package static func cleanupDefault(retention: Int) -> Int {
        max(1_000, retention / 10)
    }

    package private(set) var rows: [(id: Int64, fields: SharedDeliveryFields)] = []
    private var ids: Set<Int64> = []
    /// Shared fields first named in this batch (what makes a cleanup worth its scan).
    package var introduced = 0

    package init() {}

    /// Notes that the batch names `id`.
    package mutating func note(_ id: Int64, _ fields: SharedDeliveryFields, introduced: Bool) {
        if introduced { self.introduced += 1 }
        if ids.insert(id).inserted { rows.append((id, fields)) }
    }

    /// Adds what `other` names.
    package mutating func merge(_ other: SharedRows) {
        for (id, fields) in other.rows { note(id, fields, introduced: false) }
        introduced += other.introduced
    }
}
