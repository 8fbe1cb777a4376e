import PushMockCore
package import PushMockStore

/// A `DeliveryFilter` as an SQL `WHERE` clause over the indexed columns. `text` has no column: the
/// store applies the whole filter to the rows it reads, so the SQL only narrows.
package enum SQLiteFilter {
    package static func whereClause(_ filter: DeliveryFilter) -> (String, [SQLiteValue]) {
        var conditions: [String] = []
        var values: [SQLiteValue] = []
        func add(_ condition: String, _ value: SQLiteValue) {
            conditions.append(condition)
            values.append(value)
        }
        if let after = filter.after { add("id > ?", .integer(Int64(bitPattern: after))) }
        if let before = filter.before { add("id < ?", .integer(before > UInt64(Int64.max) ? Int64.max : Int64(before))) }
        if let service = filter.service { add("service = ?", .text(service.rawValue)) }
        if let environment = filter.environment { add("environment = ?", .text(environment)) }
        if let token = filter.deviceToken?.lowercased() {
            // The key finds the rows through the index; the token tells keys that collide apart.
            add("token_key = ?", .integer(SQLiteTokenKey.of(token)))
            add("device_token = ?", .text(token))
        }
        if let topic = filter.topic { add("topic = ?", .text(topic)) }
        if let pushType = filter.pushType { add("push_type = ?", .text(pushType)) }
        if let outcome = filter.outcome { add("outcome = ?", .text(outcome.rawValue)) }
        if let reason = filter.reason { add("reason = ?", .text(reason)) }
        if let status = filter.status { add("status = ?", .integer(Int64(status))) }
        if let project = filter.project { add("project = ?", .text(project)) }
        if let since = filter.since { add("received_at >= ?", .integer(since)) }
        if let until = filter.until { add("received_at < ?", .integer(until)) }
        if let deviceOutcome = filter.deviceOutcome {
            let outcome: String =
                switch deviceOutcome {
                case .applied: "accepted"
                case .dropped: "dropped"
                case .none: "rejected"
                }
            add("outcome = ?", .text(outcome))
        }
        if let dropReason = filter.dropReason {
            add("outcome = ?", .text("dropped"))
            add("reason = ?", .text(dropReason))
        }
        if let agrees = filter.relayAgrees { add("id IN (SELECT id FROM relay WHERE agrees = ?)", SQLiteValue(agrees)) }
        let clause = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        return (clause, values)
    }
}
