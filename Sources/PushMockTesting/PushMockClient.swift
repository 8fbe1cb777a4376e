public import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
public import PushMockCore
import PushMockInspection
import PushMockServer
public import PushMockStore

/// The inspection API of a PushMock running as a separate process (`pushmock serve`, a container),
/// with the same vocabulary as the in-process helpers, so a Swift test suite can drive a shared
/// instance.
///
/// ```swift
/// let pushmock = PushMockClient(inspectionURL: "http://127.0.0.1:2198")
/// try await pushmock.reset()
/// // … run the system under test …
/// let updates = try await pushmock.waitForDeliveries(matching: DeliveryFilter(deviceToken: token, pushType: "liveactivity"), count: 1)
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

    /// Deliveries that `filter` matches, oldest first: the same vocabulary as the in-process
    /// server's ``PushMockServer/deliveries(matching:limit:)``.
    public func deliveries(matching filter: DeliveryFilter, limit: Int = 1000) async throws -> [Delivery] {
        try await deliveries(Self.query(filter), limit: limit)
    }

    /// Waits for `count` deliveries that `filter` matches, as the in-process server's
    /// ``PushMockServer/waitForDeliveries(matching:count:timeout:)`` does.
    @discardableResult
    public func waitForDeliveries(matching filter: DeliveryFilter, count: Int = 1, timeout: Duration = .seconds(5)) async throws -> [Delivery] {
        try await waitForDeliveries(Self.query(filter), count: count, timeout: timeout)
    }

    /// Removes the deliveries `filter` matches; returns how many.
    @discardableResult
    public func clearDeliveries(matching filter: DeliveryFilter) async throws -> Int {
        try await clearDeliveries(Self.query(filter))
    }

    /// `filter` as the API's query.
    static func query(_ filter: DeliveryFilter) -> [String: String] {
        var query: [String: String] = [:]
        for (name, value) in filter.queryItems { query[name] = value }
        return query
    }

    /// Matching deliveries, oldest first. `filters` are the API's query filters (`service`,
    /// `token`, `pushType`, `outcome`, `reason`, `project`, `text`, `since`, …).
    public func deliveries(_ filters: [String: String] = [:], limit: Int = 1000) async throws -> [Delivery] {
        var query = filters
        query["limit"] = String(limit)
        query["reveal"] = "1"  // the records as received, as the in-process store gives them
        let (_, list) = try await call("GET", "/api/v1/deliveries", query: query, expecting: [200], as: DeliveryList.self)
        return list.deliveries.reversed().map(\.delivery)
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
        let (status, result) = try await call("GET", "/api/v1/deliveries/wait", query: query, expecting: [200, 408], as: WaitResult.self)
        let found = result.deliveries.reversed().map(\.delivery)
        guard status == 200 else {
            throw PushMockTestingError("timed out after \(timeout) with \(found.count) of \(count) matching deliveries", found: found)
        }
        return found
    }

    /// Removes matching deliveries (all without filters); returns how many.
    @discardableResult
    public func clearDeliveries(_ filters: [String: String] = [:]) async throws -> Int {
        let (_, removed) = try await call("DELETE", "/api/v1/deliveries", query: filters, expecting: [200], as: RemovedCount.self)
        return removed.removed
    }

    /// `POST /api/v1/reset`: deliveries, faults, devices and access tokens back to the configuration.
    public func reset() async throws {
        _ = try await call("POST", "/api/v1/reset", expecting: [200], as: ResetResult.self)
    }

    /// Adds a fault rule.
    public func addFault(_ rule: FaultRule) async throws {
        var resource = FaultResource(rule)
        resource.hits = nil  // what the server counts, not part of a rule it takes
        _ = try await call("PUT", "/api/v1/faults", body: resource, expecting: [200], as: FaultResource.self)
    }

    /// Removes every fault rule.
    public func removeFaults() async throws {
        _ = try await call("DELETE", "/api/v1/faults", expecting: [200], as: RemovedCount.self)
    }

    /// Registers or changes a device token.
    public func setDevice(_ token: String, _ record: DeviceRecord) async throws {
        _ = try await call("PUT", "/api/v1/devices/\(token)", body: DeviceResource(token: nil, record), expecting: [200], as: DeviceResource.self)
    }

    /// Marks a token unregistered since `milliseconds` (APNs 410, FCM UNREGISTERED).
    public func unregister(token: String, at milliseconds: Int64, bundleID: String? = nil) async throws {
        try await setDevice(token, DeviceRecord(bundleID: bundleID, state: .unregistered(sinceMilliseconds: milliseconds)))
    }

    /// One API call: the answer decoded as `type` (the transfer types the server encodes), or
    /// ``PushMockTestingError`` with the server's `error` message.
    private func call<Answer: Decodable>(
        _ method: String, _ path: String, query: [String: String] = [:], body: (some Encodable)? = nil as String?, expecting: Set<Int>,
        as type: Answer.Type
    ) async throws -> (Int, Answer) {
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
            guard let bytes = InspectionResponse.encoded(body) else {
                throw PushMockTestingError("cannot encode the request body for \(method) \(path)")
            }
            request.headers.add(name: "content-type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: bytes))
        }
        let response = try await client.execute(request, timeout: .seconds(330))
        let bytes = try await response.body.collect(upTo: 64 << 20)
        let status = Int(response.status.code)
        let decoder = JSONDecoder()
        guard expecting.contains(status) else {
            let message = (try? decoder.decode(InspectionError.Body.self, from: Data(buffer: bytes)))?.error ?? String(buffer: bytes)
            throw PushMockTestingError("\(method) \(path) answered \(status): \(message)")
        }
        do {
            return (status, try decoder.decode(Answer.self, from: Data(buffer: bytes)))
        } catch {
            throw PushMockTestingError("\(method) \(path) answered \(status) with a body that is not a \(Answer.self): \(error)")
        }
    }
}
