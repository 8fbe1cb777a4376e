package import PushMockCore

/// A delivery as a lasting store's row keeps it: the numbers in columns of their own, and the
/// record either as a ``CompactDelivery``'s own part with the id of the shared fields it names, or
/// (rows written before shared fields were kept apart) as the whole ``PackedDelivery``.
package struct StoredRecord {
    package var id: Int64
    package var receivedAt: Int64
    package var connectionID: Int64
    package var status: Int
    package var outcome: String
    package var service: String
    package var bodyIsJSON: Bool
    package var record: [UInt8]
    /// The shared fields the row names (nil: the record is whole).
    package var sharedID: Int64?
    /// Those shared fields as read, nil when they are not there.
    package var shared: [UInt8]?

    package init(
        id: Int64, receivedAt: Int64, connectionID: Int64, status: Int, outcome: String, service: String, bodyIsJSON: Bool, record: [UInt8],
        sharedID: Int64?, shared: [UInt8]?
    ) {
        self.id = id
        self.receivedAt = receivedAt
        self.connectionID = connectionID
        self.status = status
        self.outcome = outcome
        self.service = service
        self.bodyIsJSON = bodyIsJSON
        self.record = record
        self.sharedID = sharedID
        self.shared = shared
    }

    /// The delivery, rebuilt. A row whose shared fields are missing (`table` names where they
    /// should be) is an error, never a wrong delivery.
    package func delivery(sharedTable table: String) throws -> Delivery {
        let outcome = Delivery.Outcome(rawValue: outcome) ?? .rejected
        let service = Delivery.Service(rawValue: service)
        guard let sharedID else {
            return PackedDelivery(
                id: UInt64(bitPattern: id), receivedAt: receivedAt, connectionID: UInt64(bitPattern: connectionID), status: status,
                outcome: outcome, service: service, bodyIsJSON: bodyIsJSON, arena: record
            ).unpack()
        }
        guard let shared else {
            throw StoreError("delivery \(id) names shared fields \(sharedID), which are not in \(table)")
        }
        return CompactDelivery(
            id: UInt64(bitPattern: id), receivedAt: receivedAt, connectionID: UInt64(bitPattern: connectionID), status: status,
            outcome: outcome, service: service, bodyIsJSON: bodyIsJSON, shared: SharedDeliveryFields(bytes: shared), own: record
        ).unpack()
    }
}
