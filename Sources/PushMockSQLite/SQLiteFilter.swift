package import GRDB
import PushMockCore
package import PushMockStore

/// A `DeliveryFilter` as an SQL `WHERE` clause over the indexed columns. `text` has no column: the
/// store applies the whole filter to the rows it reads, so the SQL only narrows.
package enum SQLiteFilter {
    package static func whereClause(_ filter: DeliveryFilter) -> (String, StatementArguments) {
        var conditions: [String] = []
        var values: [(any DatabaseValueConvertible)?] = []
        func add(_ condition: String, _ value: (any DatabaseValueConvertible)?) {
            conditions.append(condition)
            values.append(value)
        }
        if let after = filter.after { add("id > ?", Int64(bitPattern: after)) }
        if let before = filter.before { add("id < ?", before > UInt64(Int64.max) ? Int64.max : Int64(before)) }
        if let service = filter.service { add("service = ?", service.rawValue) }
        if let environment = filter.environment { add("environment = ?", environment) }
        if let token = filter.deviceToken?.lowercased() {
            // The key finds the rows through the index; the token tells keys that collide apart.
            add("token_key = ?", SQLiteTokenKey.of(token))
            add("device_token = ?", token)
        }
        if let topic = filter.topic { add("topic = ?", topic) }
        if let pushType = filter.pushType { add("push_type = ?", pushType) }
        if let outcome = filter.outcome { add("outcome = ?", outcome.rawValue) }
        if let reason = filter.reason { add("reason = ?", reason) }
        if let status = filter.status { add("status = ?", status) }
        if let project = filter.project { add("project = ?", project) }
        if let since = filter.since { add("received_at >= ?", since) }
        if let until = filter.until { add("received_at < ?", until) }
        if let deviceOutcome = filter.deviceOutcome {
            let outcome: String =
                switch deviceOutcome {
                case .applied: "accepted"
                case .dropped: "dropped"
                case .none: "rejected"
                }
            add("outcome = ?", outcome)
        }
        if let dropReason = filter.dropReason {
            add("outcome = ?", "dropped")
            add("reason = ?", dropReason)
        }
        if let agrees = filter.relayAgrees { add("id IN (SELECT id FROM relay WHERE agrees = ?)", agrees) }
        let clause = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        return (clause, StatementArguments(values))
    }
}
