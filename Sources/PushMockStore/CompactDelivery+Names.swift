package import PushMockCore

/// The names a compact delivery reads as codes: which headers are volatile, and which service a
/// delivery is for.
extension CompactDelivery {
    /// Whether `field`'s value is usually new on every push (as the check of a name below says),
    /// by the name the HTTP/2 transport found when it looked.
    @inline(__always)
    package static func isVolatile(_ field: borrowing HeaderField) -> Bool {
        switch field.knownName {
        case .unchecked: isVolatile(field.name)
        case .date, .apnsID, .baggage, .tracestate, .traceparent, .xRequestID, .xB3TraceID, .sentryTrace, .contentLength, .apnsExpiration,
            .apnsRequestID, .xAmznTraceID, .apnsCollapseID, .xCloudTraceContext:
            true
        default: false
        }
    }

    /// Headers whose value is usually new on every push: kept with the delivery, not shared.
    package static func isVolatile(_ name: String) -> Bool {
        switch name.utf8.count {
        case 4: name == "date"
        case 7: name == "apns-id" || name == "baggage"
        case 10: name == "tracestate"
        case 11: name == "traceparent"
        case 12: name == "x-request-id" || name == "x-b3-traceid" || name == "sentry-trace"
        case 14: name == "content-length"
        case 15: name == "apns-expiration" || name == "apns-request-id" || name == "x-amzn-trace-id"
        case 16: name == "apns-collapse-id"
        case 21: name == "x-cloud-trace-context"
        default: false
        }
    }

    /// 1…6: the position of a known service in ``Delivery/Service/all``, plus one; 0 for another.
    /// By the name's length first, then one comparison (equal small strings compare by their
    /// bits): `firstIndex(of:)` compared up to six names through the generic `==`, about 150
    /// instructions a delivery. The tests hold these names to ``Delivery/Service/all``.
    package static func code(of service: Delivery.Service) -> UInt8 {
        let name = service.rawValue
        return switch name.utf8.count {
        case 4 where name == "apns": 1
        case 3 where name == "fcm": 2
        case 5 where name == "oauth": 3
        case 9 where name == "broadcast": 4
        case 3 where name == "iid": 5
        case 7 where name == "webpush": 6
        default: 0
        }
    }
}
