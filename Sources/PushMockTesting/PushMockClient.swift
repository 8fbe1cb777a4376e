public import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import PushMockServer
public import PushMockCore

/// The inspection API of a PushMock running as a separate process (`pushmock serve`, a container),
/// with the same vocabulary as the in-process helpers, so a Swift test suite can drive a shared
/// instance.
///
/// ```swift
/// let pushmock = PushMockClient(inspectionURL: "http://127.0.0.1:2198")
/// try await pushmock.reset()
/// // … run the system under test …
/// let updates = try await pushmock.waitForDeliveries(["pushType": "liveactivity", "token": token], count: 1)
/// #expect(updates[0].apnsPayload?.event == "update")
/// ```
public struct PushMockClient: Sendable {
    /// `http://host:port` of the inspection API.
    public let inspectionURL: String
    /// The inspection token, if the server wants one.
    public let token: String?
    private let client: HTTPClient

    /// Creates a client; `httpClient` defaults to AsyncHTTPClient's shared one.
    public init(inspectionURL: String, token: String? = nil, httpClient: HTTPClient = .shared) {
        self.inspectionURL = inspectionURL.hasSuffix("/") ? String(inspectionURL.dropLast()) : inspectionURL
        self.token = token
        self.client = httpClient
    }

    /// Matching deliveries, oldest first. `filters` are the API's query filters (`service`,
    /// `token`, `pushType`, `outcome`, `reason`, `project`, `text`, `since`, …).
    public func deliveries(_ filters: [String: String] = [:], limit: Int = 1000) async throws -> [Delivery] {
        var query = filters
        query["limit"] = String(limit)
        query["reveal"] = "1"  // the records as received, as the in-process store gives them
        let (_, json) = try await call("GET", "/api/v1/deliveries", query: query, expecting: [200])
        return try Self.deliveries(in: json).reversed()
    }

    /// Waits (server side, long-poll) for `count` matching deliveries and returns them oldest
    /// first; throws ``PushMockTestingError`` with what there was at the timeout.
    @discardableResult
    public func waitForDeliveries(_ filters: [String: String] = [:], count: Int = 1, timeout: Duration = .seconds(5)) async throws -> [Delivery] {
        var query = filters
        query["count"] = String(count)
        query["timeout"] = "\(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)ms"
        query["limit"] = String(max(count, 100))
        query["reveal"] = "1"
        let (status, json) = try await call("GET", "/api/v1/deliveries/wait", query: query, expecting: [200, 408])
        let found = try Self.deliveries(in: json).reversed().map { $0 }
        guard status == 200 else {
            throw PushMockTestingError("timed out after \(timeout) with \(found.count) of \(count) matching deliveries", found: found)
        }
        return found
    }

    /// Removes matching deliveries (all without filters); returns how many.
    @discardableResult
    public func clearDeliveries(_ filters: [String: String] = [:]) async throws -> Int {
        let (_, json) = try await call("DELETE", "/api/v1/deliveries", query: filters, expecting: [200])
        return json["removed"] as? Int ?? 0
    }

    /// `POST /api/v1/reset`: deliveries, faults, devices and access tokens back to the configuration.
    public func reset() async throws {
        _ = try await call("POST", "/api/v1/reset", expecting: [200])
    }

    /// Adds a fault rule.
    public func addFault(_ rule: FaultRule) async throws {
        _ = try await call("PUT", "/api/v1/faults", body: rule.configurationJSON, expecting: [200])
    }

    /// Removes every fault rule.
    public func removeFaults() async throws {
        _ = try await call("DELETE", "/api/v1/faults", expecting: [200])
    }

    /// Registers or changes a device token.
    public func setDevice(_ token: String, _ record: DeviceRecord) async throws {
        _ = try await call("PUT", "/api/v1/devices/\(token)", body: record.configurationJSON, expecting: [200])
    }

    /// Marks a token unregistered since `milliseconds` (APNs 410, FCM UNREGISTERED).
    public func unregister(token: String, at milliseconds: Int64, bundleID: String? = nil) async throws {
        try await setDevice(token, DeviceRecord(bundleID: bundleID, state: .unregistered(sinceMilliseconds: milliseconds)))
    }

    private func call(_ method: String, _ path: String, query: [String: String] = [:], body: String? = nil, expecting: Set<Int>) async throws -> (Int, [String: Any]) {
        var components = URLComponents(string: inspectionURL + path)!
        if !query.isEmpty {
            components.queryItems = query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        }
        var request = HTTPClientRequest(url: components.string!)
        request.method = .init(rawValue: method)
        if let token { request.headers.add(name: "authorization", value: "Bearer \(token)") }
        // Passes the inspection port's cross-site guard for bodiless state changes (DELETE, reset).
        request.headers.add(name: "x-pushmock-client", value: "PushMockClient")
        if let body {
            request.headers.add(name: "content-type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await client.execute(request, timeout: .seconds(330))
        let bytes = try await response.body.collect(upTo: 64 << 20)
        let json = (try? JSONSerialization.jsonObject(with: Data(buffer: bytes))) as? [String: Any] ?? [:]
        let status = Int(response.status.code)
        guard expecting.contains(status) else {
            throw PushMockTestingError("\(method) \(path) answered \(status): \(json["error"] as? String ?? String(buffer: bytes))")
        }
        return (status, json)
    }

    /// Decodes the API's delivery objects.
    static func deliveries(in json: [String: Any]) throws -> [Delivery] {
        guard let list = json["deliveries"] as? [[String: Any]] else {
            throw PushMockTestingError("the answer holds no deliveries list")
        }
        return list.map(delivery)
    }

    static func delivery(_ object: [String: Any]) -> Delivery {
        let headers = (object["headers"] as? [[String]] ?? []).compactMap { pair in
            pair.count == 2 ? HeaderField(name: pair[0], value: pair[1]) : nil
        }
        var body: [UInt8] = []
        if let text = object["body"] as? String {
            body = Array(text.utf8)
        } else if let base64 = object["bodyBase64"] as? String, let data = Data(base64Encoded: base64) {
            body = Array(data)
        }
        let received = (object["receivedAt"] as? String).flatMap { try? Date($0, strategy: .iso8601) }
        var delivery = Delivery(
            receivedAt: received.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) } ?? 0,
            connectionID: (object["connectionId"] as? NSNumber)?.uint64Value ?? 0,
            httpVersion: object["protocol"] as? String ?? "",
            service: Delivery.Service(rawValue: object["service"] as? String ?? ""),
            environment: object["environment"] as? String,
            method: object["method"] as? String ?? "",
            path: object["path"] as? String ?? "",
            headers: headers,
            body: body,
            bodyIsJSON: !(object["payload"] is NSNull) && object["payload"] != nil,
            identity: object["identity"] as? String,
            pushType: object["pushType"] as? String,
            topic: object["topic"] as? String,
            deviceToken: object["deviceToken"] as? String,
            apnsID: object["apnsId"] as? String,
            outcome: Delivery.Outcome(rawValue: object["outcome"] as? String ?? "") ?? .rejected,
            status: object["status"] as? Int ?? 0,
            reason: object["reason"] as? String,
            explanation: object["explanation"] as? String,
            diagnostics: object["diagnostics"] as? [String] ?? [],
            fault: object["fault"] as? String,
            project: object["project"] as? String
        )
        delivery.id = (object["id"] as? NSNumber)?.uint64Value ?? 0
        return delivery
    }
}
