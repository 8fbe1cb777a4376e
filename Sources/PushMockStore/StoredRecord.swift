import Foundation
package import PushMockCore
import Synchronization

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
    /// should be), or whose bytes do not decode (a damaged row, a hostile database file), is an
    /// error (``UndecodableRecord``), never a wrong delivery or a crash.
    package func delivery(sharedTable table: String) throws -> Delivery {
        let outcome = Delivery.Outcome(rawValue: outcome) ?? .rejected
        let service = Delivery.Service(rawValue: service)
        guard let sharedID else {
            let unpacked = PackedDelivery(
                id: UInt64(bitPattern: id), receivedAt: receivedAt, connectionID: UInt64(bitPattern: connectionID), status: status,
                outcome: outcome, service: service, bodyIsJSON: bodyIsJSON, arena: record
            ).unpackChecked()
            guard unpacked.intact else { throw UndecodableRecord(id: id) }
            return unpacked.delivery
        }
        guard let shared else {
            throw StoreError("delivery \(id) names shared fields \(sharedID), which are not in \(table)")
        }
        let unpacked = CompactDelivery(
            id: UInt64(bitPattern: id), receivedAt: receivedAt, connectionID: UInt64(bitPattern: connectionID), status: status,
            outcome: outcome, service: service, bodyIsJSON: bodyIsJSON, shared: SharedDeliveryFields(bytes: shared), own: record
        ).unpackChecked()
        guard unpacked.intact else { throw UndecodableRecord(id: id) }
        return unpacked.delivery
    }
}

/// A stored row whose bytes do not decode. Readers skip it: ``UndecodableRecords`` reports the
/// first one in the log and counts them all.
package struct UndecodableRecord: Error, CustomStringConvertible {
    package var id: Int64
    package var description: String { "delivery \(id) is damaged: its stored bytes do not decode, so it is skipped" }
}

/// Rows skipped because they do not decode, in this process: counted
/// (`pushmock_store_undecodable_total`), and the first one reported (to standard error, or to the
/// server's log once it sets ``report``).
package enum UndecodableRecords {
    /// The reporter is kept in a struct: a closure kept in a `Mutex` and read back gains a
    /// reabstraction thunk on every read with Swift 6.3 (see `SnapshotObserver`).
    private struct Reporter: Sendable {
        let call: @Sendable (String) -> Void
    }

    private static let state = Mutex<(count: UInt64, reported: Bool, report: Reporter?)>((0, false, nil))

    /// How many rows were skipped since the start.
    package static var count: UInt64 { state.withLock { $0.count } }

    /// Where the first skipped row is reported.
    package static func report(to report: @escaping @Sendable (String) -> Void) {
        state.withLock { $0.report = Reporter(call: report) }
    }

    /// Counts `record`, and reports it if it is the first.
    package static func skip(_ record: UndecodableRecord) {
        let report = state.withLock { state -> Reporter? in
            state.count += 1
            defer { state.reported = true }
            return state.reported ? nil : state.report ?? Reporter { FileHandle.standardError.write(Data(("pushmock: " + $0 + "\n").utf8)) }
        }
        report?.call("\(record) (further damaged rows are counted in pushmock_store_undecodable_total, not reported)")
    }
}
