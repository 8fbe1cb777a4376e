import PostgresNIO
import PushMockCore
import PushMockStore

/// A `DeliveryFilter` as a `WHERE` clause with bound values. Cursors are read in commit order:
/// `after: X` is "committed after delivery X" (by its `seq`), so that they mean the same on every
/// instance of a fleet; a cursor whose delivery is gone falls back to the ids around it.
/// `text` has no column: the store applies it to the rows it reads (``swiftSide``).
struct PostgresFilter {
    private(set) var sql = ""
    private(set) var bindings = PostgresBindings()
    private var conditions: [String] = []

    init(_ filter: DeliveryFilter, after cursor: UInt64? = nil) {
        if let after = filter.after { afterCondition(after) }
        if let cursor { afterCondition(cursor) }
        if let before = filter.before {
            let id = Int64(clamping: before)
            conditions.append(
                "seq < COALESCE((SELECT seq FROM pushmock_delivery WHERE id = \(bind(id))), (SELECT min(seq) FROM pushmock_delivery WHERE id >= \(bind(id))), 9223372036854775807)"
            )
        }
        if let service = filter.service { add("service", service.rawValue) }
        if let environment = filter.environment { add("environment", environment) }
        if let token = filter.deviceToken { add("device_token", token.lowercased()) }
        if let topic = filter.topic { add("topic", topic) }
        if let pushType = filter.pushType { add("push_type", pushType) }
        if let outcome = filter.outcome { add("outcome", outcome.rawValue) }
        if let reason = filter.reason { add("reason", reason) }
        if let status = filter.status { conditions.append("status = \(bind(Int64(status)))") }
        if let project = filter.project { add("project", project) }
        if let since = filter.since { conditions.append("received_at >= \(bind(since))") }
        if let until = filter.until { conditions.append("received_at < \(bind(until))") }
        if let deviceOutcome = filter.deviceOutcome {
            let outcome: String =
                switch deviceOutcome {
                case .applied: "accepted"
                case .dropped: "dropped"
                case .none: "rejected"
                }
            add("outcome", outcome)
        }
        if let dropReason = filter.dropReason {
            add("outcome", "dropped")
            add("reason", dropReason)
        }
        if let agrees = filter.relayAgrees {
            conditions.append("id IN (SELECT id FROM pushmock_relay WHERE agrees = \(agrees ? "true" : "false"))")
        }
        sql = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
    }

    /// What is left for the store to check on each row read: the text search (cursors and columns
    /// were answered by SQL, in commit order).
    static func swiftSide(_ filter: DeliveryFilter) -> DeliveryFilter? {
        guard let text = filter.text else { return nil }
        var remaining = DeliveryFilter()
        remaining.text = text
        return remaining
    }

    /// The query `prefix WHERE … suffix`.
    func query(_ prefix: String, _ suffix: String = "") -> PostgresQuery {
        PostgresQuery(unsafeSQL: "\(prefix) \(sql) \(suffix)", binds: bindings)
    }

    private mutating func afterCondition(_ id: UInt64) {
        let id = Int64(clamping: id)
        conditions.append(
            "seq > COALESCE((SELECT seq FROM pushmock_delivery WHERE id = \(bind(id))), (SELECT max(seq) FROM pushmock_delivery WHERE id <= \(bind(id))), 0)"
        )
    }

    private mutating func add(_ column: String, _ value: String) {
        conditions.append("\(column) = \(bind(value))")
    }

    private mutating func bind(_ value: String) -> String {
        bindings.append(value)
        return "$\(bindings.count)"
    }

    private mutating func bind(_ value: Int64) -> String {
        bindings.append(value)
        return "$\(bindings.count)"
    }
}
