import Foundation
import PushMockCore
import PushMockInspection
import PushMockStore
import Synchronization

/// The parity records (``ParityRecord``): how often each upstream agreed with each of PushMock's
/// answers, counted as the relay's answers come, kept across restarts and summed over a fleet.
///
/// Each run of the server counts in records of its own, saved under keys of its own
/// (`parity:<run>/…`), so that two instances sharing a store never overwrite each other's counts;
/// what the store holds from other runs and instances is read back and added in. A store no other
/// instance shares (SQLite) is compacted at start: earlier runs' records fold into this run's.
final class ParityLedger: Sendable {
    private struct Counts {
        /// This run's records.
        var own: [ParityRecord.Key: ParityRecord] = [:]
        /// Other runs' and instances' records, by their archive keys.
        var others: [String: ParityRecord] = [:]
    }

    private let counts = Mutex(Counts())
    private let archive: (any StateArchive)?
    private let run: String
    private let now: @Sendable () -> Int64

    /// A ledger keeping its records in `archive` (nil: for this run only), timed by `now` (milliseconds).
    init(archive: (any StateArchive)?, run: String = UUID().uuidString.lowercased(), now: @escaping @Sendable () -> Int64) {
        self.archive = archive
        self.run = run
        self.now = now
    }

    /// Counts the upstream's answer `result` to delivery `id` (whose own answer was `status`,
    /// `reason`, `outcome`), when it is an answer agreement can be read from.
    func note(_ result: RelayResult, service: Delivery.Service, status: Int, reason: String?, outcome: Delivery.Outcome, delivery id: UInt64) {
        guard let agrees = result.agrees, let upstreamStatus = result.status else { return }
        let ownReason = outcome == .dropped || status / 100 == 2 ? nil : reason
        let at = now()
        counts.withLock { counts in
            var record = ParityRecord(
                service: service.rawValue, reason: ownReason, status: status, upstream: ParityRecord.upstreamName(result.upstream))
            record = counts.own[record.key] ?? record
            record.status = status
            record.count(agrees: agrees, upstreamStatus: upstreamStatus, upstreamReason: result.reason, delivery: id, at: at)
            counts.own[record.key] = record
            // Under the lock (saving never blocks): two answers saved in the order they were counted.
            save(key(of: record.key), record)
        }
    }

    /// Every record, this run's and the store's, merged by service, reason and upstream.
    var records: [ParityRecord] {
        let counts = counts.withLock { $0 }
        return ParityRecord.merged(Array(counts.own.values) + Array(counts.others.values))
    }

    /// Reads what the store holds from earlier runs (and a fleet's other instances). With
    /// `compact` (no other instance shares the store), folds it into this run's records and
    /// deletes the old keys.
    func restore(compact: Bool) throws {
        guard let archive else { return }
        let stored = try archive.archived(prefix: StateKey.Prefix.parity)
        var decoded: [String: ParityRecord] = [:]
        for (key, bytes) in stored {
            if let record = try? JSONDecoder().decode(ParityRecord.self, from: Data(bytes)) { decoded[key] = record }
        }
        guard compact else {
            counts.withLock { $0.others.merge(decoded) { _, new in new } }
            return
        }
        let folded = counts.withLock { counts -> [ParityRecord] in
            for record in decoded.values {
                var merged =
                    counts.own[record.key]
                    ?? ParityRecord(
                        service: record.service, reason: record.reason, status: record.status, upstream: record.upstream)
                merged.merge(record)
                counts.own[record.key] = merged
            }
            return Array(counts.own.values)
        }
        for record in folded { save(key(of: record.key), record) }
        for key in stored.keys where !key.hasPrefix(ownPrefix) { archive.archive(key, []) }
    }

    /// A record another instance saved (empty `bytes`: deleted, which clears this run's own
    /// records when the key is one of them: the fleet forgot the records).
    func apply(key: String, _ bytes: [UInt8]) {
        if key.hasPrefix(ownPrefix) {
            guard bytes.isEmpty else { return }
            counts.withLock { counts in counts.own = counts.own.filter { self.key(of: $0.key) != key } }
            return
        }
        let record = bytes.isEmpty ? nil : try? JSONDecoder().decode(ParityRecord.self, from: Data(bytes))
        counts.withLock { $0.others[key] = record }
    }

    /// Forgets every record, this run's, the store's and the fleet's (`DELETE /api/v1/parity`).
    /// Returns how many records (merged) there were.
    func clear() throws -> Int {
        let count = records.count
        let ownKeys = counts.withLock { counts -> [String] in
            defer { counts = Counts() }
            return counts.own.keys.map(key(of:))
        }
        if let archive {
            for key in Set(ownKeys).union(try archive.archived(prefix: StateKey.Prefix.parity).keys) { archive.archive(key, []) }
        }
        return count
    }

    private var ownPrefix: String { StateKey.Prefix.parity + run + "/" }

    private func key(of key: ParityRecord.Key) -> String {
        StateKey.parity(run: run, record: "\(key.service)/\(key.upstream)/\(key.reason)").key
    }

    private func save(_ key: String, _ record: ParityRecord) {
        guard let archive, let data = try? JSONEncoder().encode(record) else { return }
        archive.archive(key, Array(data))
    }
}
