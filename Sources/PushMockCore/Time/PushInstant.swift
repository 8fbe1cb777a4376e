/// An instant on PushMock's clock, to the millisecond since 1970: what validators, simulated
/// devices and records are judged at. It says its unit, so a validator that reasons in seconds
/// (JWT `iat`, `aps.timestamp`) and a device that reasons in milliseconds can never be handed the
/// other one's number.
///
/// ```swift
/// let now = PushInstant(secondsSinceEpoch: 1_767_225_600)
/// now.advanced(by: .hours(8)) > now   // true
/// ```
public struct PushInstant: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public var millisecondsSinceEpoch: Int64

    /// The instant `milliseconds` after 1970.
    public init(millisecondsSinceEpoch milliseconds: Int64) {
        self.millisecondsSinceEpoch = milliseconds
    }

    /// The instant `seconds` after 1970 (saturating, never trapping).
    public init(secondsSinceEpoch seconds: Int64) {
        self.millisecondsSinceEpoch = SafeNumber.milliseconds(seconds: seconds)
    }

    /// 1970-01-01T00:00:00Z.
    public static let epoch = PushInstant(millisecondsSinceEpoch: 0)

    /// Whole seconds since 1970 (rounded down): the unit of JWT claims and `aps.timestamp`.
    public var secondsSinceEpoch: Int64 {
        millisecondsSinceEpoch >= 0 ? millisecondsSinceEpoch / 1000 : (millisecondsSinceEpoch - 999) / 1000
    }

    /// This instant moved by `duration` (saturating).
    public func advanced(by duration: Duration) -> PushInstant {
        let (sum, overflow) = millisecondsSinceEpoch.addingReportingOverflow(duration.milliseconds)
        return PushInstant(millisecondsSinceEpoch: overflow ? (duration < .zero ? .min : .max) : sum)
    }

    /// The time from `other` to this instant.
    public func duration(since other: PushInstant) -> Duration {
        .milliseconds(millisecondsSinceEpoch &- other.millisecondsSinceEpoch)
    }

    public static func < (lhs: PushInstant, rhs: PushInstant) -> Bool {
        lhs.millisecondsSinceEpoch < rhs.millisecondsSinceEpoch
    }

    public var description: String { "\(millisecondsSinceEpoch) ms since 1970" }
}

extension Duration {
    /// Whole milliseconds (rounded toward zero, saturating).
    public var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        guard !overflow else { return seconds < 0 ? .min : .max }
        return scaled.addingReportingOverflow(attoseconds / 1_000_000_000_000_000).partialValue
    }

    /// Whole seconds (rounded toward zero).
    public var wholeSeconds: Int64 { components.seconds }

    /// `hours` hours.
    public static func hours(_ hours: Int64) -> Duration { .seconds(hours * 3600) }
}
