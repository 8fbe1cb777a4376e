/// Conversions of numbers that come from the network (JSON claims, query parameters, payload
/// fields) that never trap: out-of-range or non-finite input gives nil, or saturates where that
/// is the documented meaning. Every request path uses these instead of `Int64(someDouble)` or
/// unchecked `*`/`+` on input (issue 10: one NaN must never take the process down).
public enum SafeNumber {
    /// An integer from a JSON number's text: exact integers as they are; a fraction or exponent
    /// form (`1.5e9`) rounded toward zero when it is finite and fits; nil otherwise (`1e300`,
    /// `1e400`, `NaN`).
    public static func int64(jsonNumber text: String) -> Int64? {
        if let exact = Int64(text) { return exact }
        guard let value = Double(text) else { return nil }
        return int64(value)
    }

    /// `value` rounded toward zero when it is finite and within Int64's range; nil otherwise.
    public static func int64(_ value: Double) -> Int64? {
        guard value.isFinite else { return nil }
        let truncated = value.rounded(.towardZero)
        // 2^63 is exactly representable; anything at or past it does not fit.
        guard truncated >= -9_223_372_036_854_775_808.0, truncated < 9_223_372_036_854_775_808.0 else { return nil }
        return Int64(truncated)
    }

    /// `seconds × 1000`, saturating at Int64's bounds instead of trapping.
    public static func milliseconds(seconds: Int64) -> Int64 {
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        guard overflow else { return product }
        return seconds < 0 ? .min : .max
    }

    /// A finite Double from a JSON number's text, or nil (`1e400` reads as infinity in Swift).
    public static func finiteDouble(jsonNumber text: String) -> Double? {
        guard let value = Double(text), value.isFinite else { return nil }
        return value
    }
}
