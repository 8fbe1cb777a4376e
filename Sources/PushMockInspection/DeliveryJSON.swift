import Foundation
import PushMockCore
import PushMockStore

/// The JSON shape of a delivery in the inspection API (documented in the README).
enum DeliveryJSON {
    static func object(_ delivery: Delivery) -> [String: Any] {
        var object: [String: Any] = [
            "id": delivery.id,
            "receivedAt": timestamp(delivery.receivedAt),
            "connectionId": delivery.connectionID,
            "protocol": delivery.httpVersion,
            "service": delivery.service.rawValue,
            "method": delivery.method,
            "path": delivery.path,
            "headers": delivery.headers.map { [$0.name, $0.value] },
            "outcome": delivery.outcome.rawValue,
            "status": delivery.status,
            "diagnostics": delivery.diagnostics,
        ]
        object["environment"] = delivery.environment ?? NSNull()
        object["identity"] = delivery.identity ?? NSNull()
        object["pushType"] = delivery.pushType ?? NSNull()
        object["topic"] = delivery.topic ?? NSNull()
        object["deviceToken"] = delivery.deviceToken ?? NSNull()
        object["apnsId"] = delivery.apnsID ?? NSNull()
        object["reason"] = delivery.reason ?? NSNull()
        object["explanation"] = delivery.explanation ?? NSNull()
        object["fault"] = delivery.fault ?? NSNull()
        object["project"] = delivery.project ?? NSNull()
        object["deviceOutcome"] = DeliveryFilter.DeviceOutcome(delivery.outcome).rawValue
        object["dropReason"] = delivery.outcome == .dropped ? (delivery.reason ?? NSNull()) : NSNull()
        if let text = String(validating: delivery.body, as: UTF8.self) {
            object["body"] = text
        } else {
            object["bodyBase64"] = Data(delivery.body).base64EncodedString()
        }
        if delivery.bodyIsJSON, let payload = try? JSONSerialization.jsonObject(with: Data(delivery.body), options: [.fragmentsAllowed]) {
            object["payload"] = payload
        } else {
            object["payload"] = NSNull()
        }
        return object
    }

    /// ISO 8601 with milliseconds, UTC.
    static func timestamp(_ milliseconds: Int64) -> String {
        let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        return date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }

    /// Milliseconds since the epoch of an ISO 8601 time (fractional seconds optional).
    static func parseTimestamp(_ text: String) -> Int64? {
        let withFraction = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        let plain = Date.ISO8601FormatStyle()
        guard let date = (try? withFraction.parse(text)) ?? (try? plain.parse(text)) else { return nil }
        return Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    static func encode(_ value: Any) -> [UInt8] {
        guard let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            return Array(#"{"error":"could not encode the response"}"#.utf8)
        }
        return Array(data)
    }
}
