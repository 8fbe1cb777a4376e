import Prometheus
import PushMockTestSupport
import Testing

@testable import PushMockServer

@Suite("The lock-free latency histogram")
struct LatencyHistogramTests {
    static let bounds: [Duration] = [.microseconds(5), .microseconds(10), .microseconds(25), .milliseconds(1), .seconds(5)]

    @Test("its text is what swift-prometheus writes for the same observations: inclusive bounds, cumulative counts, +Inf, sum and count")
    func sameTextAsSwiftPrometheus() {
        let histogram = LatencyHistogram(name: "pushmock_request_duration_seconds", services: ["apns", "fcm", "other"], bounds: Self.bounds)
        let registry = PrometheusCollectorRegistry()
        let reference = ["apns", "fcm", "other"].map { service in
            registry.makeDurationHistogram(
                descriptor: MetricNameDescriptor(namespace: "pushmock", metricName: "request_duration", unitName: "seconds", helpText: ""),
                labels: [("service", service)], buckets: Self.bounds
            )
        }
        // On a bound (inclusive), between bounds, past the last bound, zero, and a service left empty.
        let observations: [(service: Int, nanoseconds: Int64)] = [
            (0, 5_000), (0, 4_999), (0, 5_001), (0, 10_000), (0, 999_999), (0, 7_000_000_000), (0, 0), (0, 24_999),
            (2, 123_456_789), (2, 1),
        ]
        for (service, nanoseconds) in observations {
            histogram.record(service: service, nanoseconds: nanoseconds)
            reference[service].recordNanoseconds(nanoseconds)
        }
        var ours: [UInt8] = []
        histogram.emit(into: &ours)
        let theirs = registry.emitToBuffer()
        let text = String(decoding: ours, as: UTF8.self)
        // The same lines (swift-prometheus orders its series by hash, PushMock by service).
        let ourLines = text.split(separator: "\n")
        let theirLines = String(decoding: theirs, as: UTF8.self).split(separator: "\n")
        #expect(ourLines.count == theirLines.count && ourLines.first == theirLines.first)
        #expect(Set(ourLines) == Set(theirLines))
        #expect(text.contains(#"pushmock_request_duration_seconds_bucket{service="apns",le="0.000005"} 3"#))
        #expect(text.contains(#"pushmock_request_duration_seconds_bucket{service="apns",le="+Inf"} 8"#))
        #expect(text.contains(#"pushmock_request_duration_seconds_count{service="fcm"} 0"#))
        #expect(text.contains(#"pushmock_request_duration_seconds_count{service="other"} 2"#))
    }

    @Test("observations from many threads at once are all counted")
    func concurrentObservations() async {
        let histogram = LatencyHistogram(name: "latency", services: ["apns"], bounds: Self.bounds)
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for index in 0..<10_000 { histogram.record(service: 0, nanoseconds: Int64((task * 10_000 + index) % 30_000)) }
                }
            }
        }
        var text: [UInt8] = []
        histogram.emit(into: &text)
        let lines = String(decoding: text, as: UTF8.self).split(separator: "\n")
        #expect(lines.contains(#"latency_count{service="apns"} 80000"#))
        #expect(lines.contains(#"latency_bucket{service="apns",le="+Inf"} 80000"#))
    }
}
