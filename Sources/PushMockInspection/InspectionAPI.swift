public import PushMockCore
public import PushMockStore

/// The inspection HTTP API (`/api/v1/…`) and health endpoints, transport-neutral.
///
/// | Route | |
/// |---|---|
/// | `GET /api/v1/deliveries` | newest first; filters `service`, `environment`, `token`, `topic`, `pushType`, `outcome`, `reason`, `status`, `after`, `before`, `limit` |
/// | `GET /api/v1/deliveries/{id}` | one delivery |
/// | `DELETE /api/v1/deliveries` | removes deliveries (all, or those matching the same filters) |
/// | `GET /livez`, `GET /readyz` | health |
public struct InspectionAPI: Sendable {
    /// The store it reads.
    public let store: InMemoryDeliveryStore
    /// Where the push port listens (for `…/curl`).
    public let pushAddress: PushAddress

    /// Creates the API over `store`.
    public init(store: InMemoryDeliveryStore, pushAddress: PushAddress = PushAddress(host: "127.0.0.1", caFile: "Certs/ca.pem")) {
        self.store = store
        self.pushAddress = pushAddress
    }

    /// The largest delivery id the API accepts (JSON-safe integers).
    public static let maxID: UInt64 = (1 << 53) - 1

    /// The largest `limit` a list accepts.
    public static let maxLimit = 1000

    /// Answers one request.
    public func handle(_ request: InspectionRequest) -> InspectionResponse {
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: true)
        switch (request.method, segments.count) {
        case ("GET", 1) where segments[0] == "livez", ("HEAD", 1) where segments[0] == "livez":
            return HealthEndpoints.livez()
        case ("GET", 1) where segments[0] == "readyz", ("HEAD", 1) where segments[0] == "readyz":
            return HealthEndpoints.readyz(ready: true)
        default:
            break
        }
        if segments.count == 3, segments[0] == "api", segments[1] == "v1", segments[2] == "openapi.yaml" {
            guard request.method == "GET" else { return Self.error(405, "use GET \(request.path)") }
            guard let yaml = OpenAPIDocument.yaml else { return Self.error(500, "openapi.yaml is missing from the PushMock resource bundle") }
            return InspectionResponse(status: 200, contentType: "application/yaml", body: yaml)
        }
        guard segments.count >= 3, segments[0] == "api", segments[1] == "v1", segments[2] == "deliveries" else {
            return Self.error(404, "no such endpoint: \(request.method) \(request.path)")
        }
        if let problem = request.revealProblem { return Self.error(400, problem) }
        switch (request.method, segments.count) {
        case ("GET", 3):
            return list(request)
        case ("DELETE", 3):
            switch Self.filter(from: request.query, allowing: []) {
            case .failure(let error): return Self.error(400, error.message)
            case .success(let filter):
                let removed = store.remove(filter)
                return DeliveryJSON.response(status: 200, ["removed": removed])
            }
        case ("GET", 4):
            guard let id = UInt64(segments[3]), id <= Self.maxID else { return Self.error(400, "delivery ids are integers from 0 to 2^53-1, got \(segments[3])") }
            guard let delivery = store.delivery(id: id) else { return Self.error(404, "no delivery \(id) (never recorded, removed, or past retention)") }
            return DeliveryJSON.response(status: 200, DeliveryJSON.object(delivery, reveal: request.reveal))
        case ("GET", 5) where segments[4] == "curl":
            guard let id = UInt64(segments[3]), id <= Self.maxID else { return Self.error(400, "delivery ids are integers from 0 to 2^53-1, got \(segments[3])") }
            guard let delivery = store.delivery(id: id) else { return Self.error(404, "no delivery \(id) (never recorded, removed, or past retention)") }
            return InspectionResponse(status: 200, contentType: "text/plain; charset=utf-8", body: Array(CurlCommand.command(for: delivery, address: pushAddress, reveal: request.reveal).utf8))
        case (_, 3), (_, 4):
            return Self.error(405, "\(request.method) is not allowed on \(request.path)")
        default:
            return Self.error(404, "no such endpoint: \(request.method) \(request.path)")
        }
    }

    /// A parsed `GET /api/v1/deliveries/wait`.
    public struct WaitSpec: Sendable {
        public var filter: DeliveryFilter
        public var count: Int
        public var timeoutMilliseconds: Int64
        public var limit: Int
        /// `reveal=1`: credentials as received.
        public var reveal = false
    }

    /// Parses `GET /api/v1/deliveries/wait?<filters>&after=<cursor>&count=N&timeout=5s`: the wait
    /// to perform, or the 400 to answer.
    public func waitSpec(_ request: InspectionRequest) -> Result<WaitSpec, InspectionError> {
        var count = 1
        var timeout: Int64 = 5000
        var limit = 100
        for (name, value) in request.query {
            switch name {
            case "count":
                guard let parsed = Int(value), parsed >= 1, parsed <= 100_000 else { return .failure(InspectionError("count must be an integer from 1 to 100000, got \(value)")) }
                count = parsed
            case "timeout":
                guard let parsed = Self.milliseconds(value), parsed >= 0, parsed <= 300_000 else {
                    return .failure(InspectionError("timeout must be a duration up to 300s such as 5s, 500ms or 2.5, got \(value)"))
                }
                timeout = parsed
            case "limit":
                guard let parsed = Int(value), parsed > 0, parsed <= Self.maxLimit else { return .failure(InspectionError("limit must be an integer from 1 to \(Self.maxLimit), got \(value)")) }
                limit = parsed
            default:
                continue
            }
        }
        switch Self.filter(from: request.query, allowing: ["count", "timeout", "limit"]) {
        case .failure(let error): return .failure(InspectionError(error.message))
        case .success(let filter): return .success(WaitSpec(filter: filter, count: count, timeoutMilliseconds: timeout, limit: limit, reveal: request.reveal))
        }
    }

    /// The answer to a finished wait: 200 with the matches, or 408 with what there is.
    public func waitAnswer(_ spec: WaitSpec, timedOut: Bool) -> InspectionResponse {
        let (deliveries, total) = store.query(spec.filter, limit: spec.limit)
        var object: [String: Any] = ["deliveries": deliveries.map { DeliveryJSON.object($0, reveal: spec.reveal) }, "total": total, "count": spec.count, "timedOut": timedOut]
        object["newestId"] = deliveries.first?.id
        if timedOut {
            object["error"] = "timed out after \(spec.timeoutMilliseconds) ms with \(total) of \(spec.count) matching deliveries"
        }
        return DeliveryJSON.response(status: timedOut ? 408 : 200, object)
    }

    /// A time in the API's shape: ISO 8601 with milliseconds, UTC.
    public static func timestamp(_ milliseconds: Int64) -> String {
        DeliveryJSON.timestamp(milliseconds)
    }

    /// Foundation JSON objects encoded as the API does (sorted keys, unescaped slashes).
    public static func encode(_ value: Any) -> [UInt8] {
        DeliveryJSON.encode(value)
    }

    /// `value` encoded as the API does with `status`, or a 500 when it cannot be encoded.
    public static func response(status: Int, _ value: Any) -> InspectionResponse {
        DeliveryJSON.response(status: status, value)
    }

    /// A parsed JSON value as Foundation objects, safe to encode (non-finite numbers as text).
    public static func foundation(_ value: JSONValue) -> Any {
        DeliveryJSON.foundation(value)
    }

    /// One delivery in the API's JSON shape, on one line.
    public static func json(_ delivery: Delivery, reveal: Bool = false) -> [UInt8] {
        DeliveryJSON.encode(DeliveryJSON.object(delivery, reveal: reveal))
    }

    /// Parses the filters of `GET /api/v1/events` (the delivery filters; `after` is the first cursor).
    public func eventFilter(_ request: InspectionRequest) -> Result<DeliveryFilter, InspectionError> {
        Self.filter(from: request.query, allowing: []).mapError { InspectionError($0.message) }
    }

    /// An error of the inspection API itself.
    public struct InspectionError: Error, Sendable {
        public let message: String
        init(_ message: String) { self.message = message }
        /// The JSON answer.
        public var response: InspectionResponse { InspectionAPI.error(400, message) }
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

    private func list(_ request: InspectionRequest) -> InspectionResponse {
        var limit = 100
        if let text = request.query.last(where: { $0.name == "limit" })?.value {
            guard let value = Int(text), value > 0, value <= Self.maxLimit else {
                return Self.error(400, "limit must be an integer from 1 to \(Self.maxLimit), got \(text)")
            }
            limit = value
        }
        switch Self.filter(from: request.query, allowing: ["limit"]) {
        case .failure(let error):
            return Self.error(400, error.message)
        case .success(let filter):
            let (deliveries, total) = store.query(filter, limit: limit)
            var object: [String: Any] = ["deliveries": deliveries.map { DeliveryJSON.object($0, reveal: request.reveal) }, "total": total]
            object["newestId"] = deliveries.first?.id
            object["oldestId"] = deliveries.last?.id
            return DeliveryJSON.response(status: 200, object)
        }
    }

    /// The filter names the API accepts.
    public static let filterNames = [
        "service", "environment", "token", "topic", "pushType", "project", "outcome", "reason", "status", "after", "before",
        "since", "until", "text", "deviceOutcome", "dropReason",
    ]

    static func filter(from query: [(name: String, value: String)], allowing extra: Set<String>) -> Result<DeliveryFilter, FilterError> {
        var filter = DeliveryFilter()
        for (name, value) in query {
            switch name {
            case "service":
                guard Delivery.Service.all.map(\.rawValue).contains(value) else {
                    return .failure(FilterError("service must be one of \(Delivery.Service.all.map(\.rawValue).joined(separator: ", ")), got \(value)"))
                }
                filter.service = Delivery.Service(rawValue: value)
            case "environment":
                guard APNSEnvironment(rawValue: value) != nil else { return .failure(FilterError("environment must be sandbox or production, got \(value)")) }
                filter.environment = value
            case "token": filter.deviceToken = value
            case "topic": filter.topic = value
            case "pushType": filter.pushType = value
            case "outcome":
                guard let outcome = Delivery.Outcome(rawValue: value) else {
                    return .failure(FilterError("outcome must be one of \(Delivery.Outcome.allCases.map(\.rawValue).joined(separator: ", ")), got \(value)"))
                }
                filter.outcome = outcome
            case "reason": filter.reason = value
            case "project": filter.project = value
            case "status":
                guard let status = Int(value), (100...599).contains(status) else { return .failure(FilterError("status must be an HTTP status from 100 to 599, got \(value)")) }
                filter.status = status
            case "since", "until":
                guard let milliseconds = Self.instant(value) else {
                    return .failure(FilterError("\(name) must be an ISO 8601 time (2026-11-21T09:00:00Z) or milliseconds since the epoch, got \(value)"))
                }
                if name == "since" { filter.since = milliseconds } else { filter.until = milliseconds }
            case "text":
                guard !value.isEmpty else { return .failure(FilterError("text must not be empty")) }
                filter.text = value
            case "deviceOutcome":
                guard let outcome = DeliveryFilter.DeviceOutcome(rawValue: value) else {
                    return .failure(FilterError("deviceOutcome must be one of \(DeliveryFilter.DeviceOutcome.allCases.map(\.rawValue).joined(separator: ", ")), got \(value)"))
                }
                filter.deviceOutcome = outcome
            case "dropReason": filter.dropReason = value
            case "after", "before":
                guard let id = UInt64(value), id <= Self.maxID else { return .failure(FilterError("\(name) must be a delivery id (0 to 2^53-1), got \(value)")) }
                if name == "after" { filter.after = id } else { filter.before = id }
            case "access_token":
                continue  // the inspection token, checked by the server
            case "reveal":
                guard ["1", "true", "0", "false"].contains(value) else {
                    return .failure(FilterError("reveal must be 1 or true (or 0, false), got \(value)"))
                }
            default:
                guard extra.contains(name) else {
                    return .failure(FilterError("unknown filter \(name); known: \((filterNames + extra.sorted()).joined(separator: ", "))"))
                }
            }
        }
        return .success(filter)
    }

    /// Milliseconds since the epoch from an ISO 8601 time or a plain integer.
    static func instant(_ text: String) -> Int64? {
        // Years 1 to 9999, as RFC 3339 allows.
        if let milliseconds = Int64(text) { return (-62_135_596_800_000...253_402_300_799_999).contains(milliseconds) ? milliseconds : nil }
        return DeliveryJSON.parseTimestamp(text)
    }

    struct FilterError: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    /// A JSON error answer `{"error":"…"}`.
    public static func error(_ status: Int, _ message: String) -> InspectionResponse {
        InspectionResponse(status: status, body: DeliveryJSON.encode(["error": message]))
    }
}
