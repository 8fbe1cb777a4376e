import Prometheus
import PushMockBytes
import Synchronization

/// The time pushes spend in PushMock, per service, as a Prometheus histogram: a push adds one to
/// its bucket and its nanoseconds to the sum (two relaxed atomic adds, no lock); a scrape folds the
/// buckets into the cumulative counts Prometheus expects. (swift-prometheus's histogram takes a
/// lock and walks every bucket on each observation: 1.7% of a push's time in the profile.)
///
/// ```swift
/// let histogram = LatencyHistogram(name: "pushmock_request_duration_seconds", services: ["apns", "fcm"], bounds: [.microseconds(5)])
/// histogram.record(service: 0, nanoseconds: 4_200)
/// var text: [UInt8] = []
/// histogram.emit(into: &text)   // …_bucket{service="apns",le="0.000005"} 1 …
/// ```
final class LatencyHistogram: Sendable {
    let name: String
    let services: [String]
    /// The buckets' upper bounds (inclusive), ascending.
    let bounds: [Duration]
    private let nanosecondBounds: [Int64]
    /// Per service: a count per bound, one for +Inf, then the sum in nanoseconds.
    nonisolated(unsafe) private let cells: AtomicCells
    private var stride: Int { bounds.count + 2 }

    init(name: String, services: [String], bounds: [Duration]) {
        precondition(zip(bounds, bounds.dropFirst()).allSatisfy { $0 < $1 }, "bucket bounds must ascend")
        self.name = name
        self.services = services
        self.bounds = bounds
        nanosecondBounds = bounds.map { $0.components.seconds * 1_000_000_000 + $0.components.attoseconds / 1_000_000_000 }
        cells = AtomicCells.make(count: services.count * (bounds.count + 2))
    }

    /// Counts one push of the service at `service` (an index into ``services``).
    func record(service: Int, nanoseconds: Int64) {
        var bucket = 0
        while bucket < nanosecondBounds.count && nanosecondBounds[bucket] < nanoseconds { bucket += 1 }
        let base = service * stride
        cells.add(base + bucket, 1)
        cells.add(base + stride - 1, Int(max(0, nanoseconds)))
    }

    /// Appends the histogram in the Prometheus text format, as swift-prometheus writes one.
    func emit(into buffer: inout [UInt8]) {
        buffer.append(contentsOf: "# TYPE \(name) histogram\n".utf8)
        for (index, service) in services.enumerated() {
            let base = index * stride
            let labels = "service=\"\(service)\""
            var cumulative = 0
            for (bucket, bound) in bounds.enumerated() {
                cumulative += cells.load(base + bucket)
                buffer.append(contentsOf: "\(name)_bucket{\(labels),le=\"\(bound.bucketRepresentation)\"} \(cumulative)\n".utf8)
            }
            cumulative += cells.load(base + bounds.count)
            let sum = Duration.nanoseconds(cells.load(base + stride - 1))
            buffer.append(contentsOf: "\(name)_bucket{\(labels),le=\"+Inf\"} \(cumulative)\n".utf8)
            buffer.append(contentsOf: "\(name)_sum{\(labels)} \(sum.bucketRepresentation)\n".utf8)
            buffer.append(contentsOf: "\(name)_count{\(labels)} \(cumulative)\n".utf8)
        }
    }
}
