import Foundation

/// An instant as the API shows it: RFC 3339 with milliseconds, UTC (`2026-11-21T09:00:00.000Z`);
/// read back from any RFC 3339 time or milliseconds since the epoch.
public struct InspectionTime: Codable, Sendable, Hashable, Comparable {
    /// Milliseconds since the epoch.
    public var milliseconds: Int64

    /// Creates a time.
    public init(milliseconds: Int64) {
        self.milliseconds = milliseconds
    }

    public static func < (lhs: InspectionTime, rhs: InspectionTime) -> Bool { lhs.milliseconds < rhs.milliseconds }

    /// The instants a timestamp may show: years 1 to 9999 (RFC 3339); others are clamped.
    static let range: ClosedRange<Int64> = -62_135_596_800_000...253_402_300_799_999

    /// The text.
    public var text: String {
        let clamped = min(max(milliseconds, Self.range.lowerBound), Self.range.upperBound)
        // Whole seconds through the formatter, the milliseconds as digits: a Double of
        // milliseconds / 1000 can fall just below the instant (…123 ms printed as .122).
        let seconds = clamped >= 0 ? clamped / 1000 : -((-clamped + 999) / 1000)
        let fraction = Int(clamped - seconds * 1000)
        let date = Date(timeIntervalSince1970: Double(seconds))
        let whole = date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: false).timeZone(separator: .omitted))
        let digits = String(fraction)
        return String(whole.dropLast()) + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }

    /// Parses an RFC 3339 time or an integer of milliseconds since the epoch (years 1 to 9999).
    public init?(parsing text: String) {
        if let milliseconds = Int64(text) {
            guard Self.range.contains(milliseconds) else { return nil }
            self.milliseconds = milliseconds
            return
        }
        guard let milliseconds = RFC3339.milliseconds(text) else { return nil }
        self.milliseconds = milliseconds
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let parsed = InspectionTime(parsing: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an RFC 3339 time: \(text)")
        }
        self = parsed
    }
}
