import PushMockCore
import PushMockStore

/// The query parameters of the delivery routes: filters, `limit`, `count`, `timeout`, `reveal`.
enum DeliveryQuery {
    /// The largest delivery id the API accepts (JSON-safe integers).
    static let maxID: UInt64 = (1 << 53) - 1

    /// The largest `limit` a list accepts.
    static let maxLimit = 1000

    /// The filter names the API accepts.
    static let filterNames = [
        "service", "environment", "token", "topic", "pushType", "project", "outcome", "reason", "status", "after", "before",
        "since", "until", "text", "deviceOutcome", "dropReason", "relayAgrees",
    ]

    /// The delivery filter of `query`; `extra` names the other parameters a route takes.
    static func filter(_ query: [(name: String, value: String)], allowing extra: Set<String> = []) throws(InspectionError) -> DeliveryFilter {
        var filter = DeliveryFilter()
        for (name, value) in query {
            switch name {
            case "service":
                guard Delivery.Service.all.map(\.rawValue).contains(value) else {
                    throw .badRequest("service must be one of \(Delivery.Service.all.map(\.rawValue).joined(separator: ", ")), got \(value)")
                }
                filter.service = Delivery.Service(rawValue: value)
            case "environment":
                guard APNSEnvironment(rawValue: value) != nil else { throw .badRequest("environment must be sandbox or production, got \(value)") }
                filter.environment = value
            case "token": filter.deviceToken = value
            case "topic": filter.topic = value
            case "pushType": filter.pushType = value
            case "outcome":
                guard let outcome = Delivery.Outcome(rawValue: value) else {
                    throw .badRequest("outcome must be one of \(Delivery.Outcome.allCases.map(\.rawValue).joined(separator: ", ")), got \(value)")
                }
                filter.outcome = outcome
            case "reason": filter.reason = value
            case "project": filter.project = value
            case "status":
                guard let status = Int(value), (100...599).contains(status) else {
                    throw .badRequest("status must be an HTTP status from 100 to 599, got \(value)")
                }
                filter.status = status
            case "since", "until":
                guard let instant = InspectionTime(parsing: value) else {
                    throw .badRequest("\(name) must be an ISO 8601 time (2026-11-21T09:00:00Z) or milliseconds since the epoch, got \(value)")
                }
                if name == "since" { filter.since = instant.milliseconds } else { filter.until = instant.milliseconds }
            case "text":
                guard !value.isEmpty else { throw .badRequest("text must not be empty") }
                filter.text = value
            case "deviceOutcome":
                guard let outcome = DeliveryFilter.DeviceOutcome(rawValue: value) else {
                    throw .badRequest(
                        "deviceOutcome must be one of \(DeliveryFilter.DeviceOutcome.allCases.map(\.rawValue).joined(separator: ", ")), got \(value)")
                }
                filter.deviceOutcome = outcome
            case "dropReason": filter.dropReason = value
            case "relayAgrees":
                guard value == "true" || value == "false" else { throw .badRequest("relayAgrees must be true or false, got \(value)") }
                filter.relayAgrees = value == "true"
            case "after", "before":
                if name == "after" { filter.after = try id(value, name: name) } else { filter.before = try id(value, name: name) }
            case "access_token":
                continue  // the inspection token, checked by the router
            case "reveal":
                guard ["1", "true", "0", "false"].contains(value) else { throw .badRequest("reveal must be 1 or true (or 0, false), got \(value)") }
            default:
                guard extra.contains(name) else {
                    throw .badRequest("unknown filter \(name); known: \((filterNames + extra.sorted()).joined(separator: ", "))")
                }
            }
        }
        return filter
    }

    /// The query items that ``filter(_:allowing:)`` reads back as `filter`: what a client sends
    /// to ask the API for the deliveries `filter` matches in process.
    static func items(_ filter: DeliveryFilter) -> [(name: String, value: String)] {
        var items: [(name: String, value: String)] = []
        func add(_ name: String, _ value: String?) {
            if let value { items.append((name, value)) }
        }
        add("service", filter.service?.rawValue)
        add("environment", filter.environment)
        add("token", filter.deviceToken)
        add("topic", filter.topic)
        add("pushType", filter.pushType)
        add("project", filter.project)
        add("outcome", filter.outcome?.rawValue)
        add("reason", filter.reason)
        add("status", filter.status.map(String.init))
        add("after", filter.after.map(String.init))
        add("before", filter.before.map(String.init))
        add("since", filter.since.map(String.init))
        add("until", filter.until.map(String.init))
        add("text", filter.text)
        add("deviceOutcome", filter.deviceOutcome?.rawValue)
        add("dropReason", filter.dropReason)
        add("relayAgrees", filter.relayAgrees.map { $0 ? "true" : "false" })
        return items
    }

    /// Refuses `relayAgrees` where deliveries are matched as they are recorded (a wait, an event
    /// stream): the relay's answer arrives after the record, so such a filter would never match.
    static func refuseRelayFilter(_ filter: DeliveryFilter, in route: String) throws(InspectionError) {
        if filter.relayAgrees != nil {
            throw .badRequest(
                "relayAgrees cannot be used with \(route): deliveries are matched as they are recorded, before the relay's answer; list /api/v1/deliveries?relayAgrees=… instead"
            )
        }
    }

    /// A delivery id from a path or a cursor parameter.
    static func id(_ text: String, name: String = "delivery ids") throws(InspectionError) -> UInt64 {
        guard let id = UInt64(text), id <= maxID else {
            throw .badRequest(
                name == "delivery ids"
                    ? "delivery ids are integers from 0 to 2^53-1, got \(text)" : "\(name) must be a delivery id (0 to 2^53-1), got \(text)")
        }
        return id
    }

    /// `limit` (default 100).
    static func limit(_ request: InspectionRequest) throws(InspectionError) -> Int {
        guard let text = request.queryValue("limit") else { return 100 }
        guard let value = Int(text), value > 0, value <= maxLimit else {
            throw .badRequest("limit must be an integer from 1 to \(maxLimit), got \(text)")
        }
        return value
    }

    /// A duration such as `5s`, `500ms` or `2.5` (seconds) in milliseconds; nil for anything that
    /// is not a finite number in range (`NaN`, `inf`, `1e20`, `1e400`): never a trapping conversion.
    static func milliseconds(_ text: String) -> Int64? {
        let number: Substring
        let scale: Double
        if text.hasSuffix("ms") {
            (number, scale) = (text.dropLast(2), 1)
        } else if text.hasSuffix("s") {
            (number, scale) = (text.dropLast(), 1000)
        } else {
            (number, scale) = (Substring(text), 1000)
        }
        guard let value = Double(number), value.isFinite else { return nil }
        return SafeNumber.int64(value * scale)
    }
}
