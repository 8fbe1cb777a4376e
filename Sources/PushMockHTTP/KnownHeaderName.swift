/// Which of the header names PushMock looks for a field's name is, as the HTTP/2 transport found
/// when it received the field: the validators and the delivery stores switch on this byte instead
/// of comparing the name as text, header by header, on every push.
///
/// A field made any other way (the HTTP/1.1 transport, a test, a delivery read back) is
/// ``unchecked``, and its name is compared as text. ``other`` means the transport looked and the
/// name is none of these.
package enum KnownHeaderName: UInt8, CaseIterable, Sendable {
    case unchecked
    case other
    case authorization, contentType, contentLength, userAgent, accept, acceptEncoding, te
    case apnsTopic, apnsPushType, apnsPriority, apnsExpiration, apnsID, apnsCollapseID, apnsRequestID, apnsUniqueID
    case xGoogAPIClient, xFirebaseClient, xGoogUserProject
    case xRequestID, traceparent, tracestate, baggage, date, xB3TraceID, sentryTrace, xAmznTraceID, xCloudTraceContext

    /// The name's text (lowercase); `nil` for ``unchecked`` and ``other``.
    package var text: StaticString? {
        switch self {
        case .unchecked, .other: nil
        case .authorization: "authorization"
        case .contentType: "content-type"
        case .contentLength: "content-length"
        case .userAgent: "user-agent"
        case .accept: "accept"
        case .acceptEncoding: "accept-encoding"
        case .te: "te"
        case .apnsTopic: "apns-topic"
        case .apnsPushType: "apns-push-type"
        case .apnsPriority: "apns-priority"
        case .apnsExpiration: "apns-expiration"
        case .apnsID: "apns-id"
        case .apnsCollapseID: "apns-collapse-id"
        case .apnsRequestID: "apns-request-id"
        case .apnsUniqueID: "apns-unique-id"
        case .xGoogAPIClient: "x-goog-api-client"
        case .xFirebaseClient: "x-firebase-client"
        case .xGoogUserProject: "x-goog-user-project"
        case .xRequestID: "x-request-id"
        case .traceparent: "traceparent"
        case .tracestate: "tracestate"
        case .baggage: "baggage"
        case .date: "date"
        case .xB3TraceID: "x-b3-traceid"
        case .sentryTrace: "sentry-trace"
        case .xAmznTraceID: "x-amzn-trace-id"
        case .xCloudTraceContext: "x-cloud-trace-context"
        }
    }
}
