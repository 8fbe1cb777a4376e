import Foundation
import PushMockCore
import PushMockStore

/// The JSON shape of a delivery in the inspection API (documented in the README).
enum DeliveryJSON {
    /// The delivery's JSON object; `reveal` shows the `authorization` header as received instead
    /// of with its signature elided (``CredentialView``).
    static func object(_ delivery: Delivery, reveal: Bool = false) -> [String: Any] {
        var headers = delivery.headers.map { [$0.name, $0.value] }
        var credential: Any = NSNull()
        if !reveal, let index = delivery.headers.firstIndex(where: { $0.name == "authorization" }) {
            let value = delivery.headers[index].value
            headers[index][1] = CredentialView.value(value)
            credential = CredentialView.decoded(value) ?? NSNull()
        }
        var object: [String: Any] = [
            "id": delivery.id,
            "receivedAt": timestamp(delivery.receivedAt),
            "connectionId": delivery.connectionID,
            "protocol": delivery.httpVersion,
            "service": delivery.service.rawValue,
            "method": delivery.method,
            "path": delivery.path,
            "headers": headers,
            "authorization": credential,
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
        object["activityId"] = delivery.activityID ?? NSNull()
        object["issuedActivityToken"] = delivery.issuedActivityToken ?? NSNull()
        object["deviceOutcome"] = DeliveryFilter.DeviceOutcome(delivery.outcome).rawValue
        object["dropReason"] = delivery.outcome == .dropped ? (delivery.reason ?? NSNull()) : NSNull()
        if let text = String(validating: delivery.body, as: UTF8.self) {
            object["body"] = text
        } else {
            object["bodyBase64"] = Data(delivery.body).base64EncodedString()
        }
        if delivery.bodyIsJSON, let payload = JSONValue.parse(delivery.body) {
            object["payload"] = foundation(payload)
        } else {
            object["payload"] = NSNull()
        }
        return object
    }

    /// A parsed JSON value as Foundation objects for encoding: integers stay exact, and a number
    /// that is not a finite Double (`1e400`) is kept as its text, so one hostile payload can never
    /// make a response unencodable (issue 10, defect 8).
    static func foundation(_ value: JSONValue) -> Any {
        switch value {
        case .object(let members):
            var object: [String: Any] = [:]
            for (key, member) in members { object[key] = foundation(member) }
            return object
        case .array(let elements): return elements.map(foundation)
        case .string(let text): return text
        case .number(let text):
            if let integer = Int64(text) { return integer }
            return SafeNumber.finiteDouble(jsonNumber: text) ?? text
        case .bool(let flag): return flag
        case .null: return NSNull()
        }
    }

    /// The instants a timestamp may show: years 1 to 9999 (RFC 3339); others are clamped.
    static let timestampRange: ClosedRange<Int64> = -62_135_596_800_000...253_402_300_799_999

    /// ISO 8601 with milliseconds, UTC.
    static func timestamp(_ milliseconds: Int64) -> String {
        let clamped = min(max(milliseconds, timestampRange.lowerBound), timestampRange.upperBound)
        let date = Date(timeIntervalSince1970: Double(clamped) / 1000)
        return date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }

    /// Milliseconds since the epoch of an RFC 3339 date-time (`2026-11-21T09:00:00Z`,
    /// `2026-11-21t09:00:00.5+01:00`; any number of fraction digits, read to milliseconds).
    static func parseTimestamp(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        var index = 0
        func digits(_ count: Int) -> Int64? {
            guard index + count <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[index..<(index + count)] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - 0x30)
            }
            index += count
            return value
        }
        func expect(_ characters: String) -> Bool {
            guard index < bytes.count, characters.utf8.contains(bytes[index]) else { return false }
            index += 1
            return true
        }
        guard let year = digits(4), expect("-"), let month = digits(2), expect("-"), let day = digits(2), expect("Tt "),
              let hour = digits(2), expect(":"), let minute = digits(2), expect(":"), let second = digits(2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year), hour <= 23, minute <= 59, second <= 60 else { return nil }
        var milliseconds: Int64 = 0
        if index < bytes.count, bytes[index] == 0x2E {
            index += 1
            var scale: Int64 = 100
            let start = index
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) {
                milliseconds += Int64(bytes[index] - 0x30) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        var offset: Int64 = 0
        if expect("Zz") {
            offset = 0
        } else if index < bytes.count, bytes[index] == 0x2B || bytes[index] == 0x2D {
            let sign: Int64 = bytes[index] == 0x2D ? -1 : 1
            index += 1
            guard let offsetHours = digits(2), expect(":"), let offsetMinutes = digits(2), offsetHours <= 23, offsetMinutes <= 59 else { return nil }
            offset = sign * (offsetHours * 60 + offsetMinutes) * 60
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86400 + hour * 3600 + minute * 60 + second - offset
        return seconds * 1000 + milliseconds
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    private static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The body that stands for a value that could not be encoded (answered with status 500).
    static let encodingFailure = Array(#"{"error":"could not encode the response"}"#.utf8)

    static func encode(_ value: Any) -> [UInt8] {
        encodeIfPossible(value) ?? encodingFailure
    }

    static func encodeIfPossible(_ value: Any) -> [UInt8]? {
        guard JSONSerialization.isValidJSONObject(value),
            let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return nil }
        return Array(data)
    }

    /// `value` encoded with `status`, or a 500 when it cannot be encoded: an encoding failure is a
    /// server error, never a 200.
    static func response(status: Int, _ value: Any) -> InspectionResponse {
        guard let body = encodeIfPossible(value) else { return InspectionResponse(status: 500, body: encodingFailure) }
        return InspectionResponse(status: status, body: body)
    }
}
