import PushMockCore

/// One push to forward: the request as the sender made it (method, path, headers and body) and
/// PushMock's own verdict, which the upstream's answer is compared with.
///
/// The request is packed into one buffer of the job's own rather than kept as the `Delivery`: a
/// full queue of waiting forwards would otherwise keep thousands of the push port's requests
/// alive, and the push path measurably slowed while it did.
struct RelayJob: Sendable {
    let deliveryID: UInt64
    let service: Delivery.Service
    /// The base URL the push goes to.
    let upstream: String
    /// PushMock's own answer and verdict.
    let status: Int
    let reason: String?
    let outcome: Delivery.Outcome
    /// The method, the path, each header's name and value, and the body, back to back.
    private let bytes: [UInt8]
    /// Where each part but the body ends in `bytes`: method, path, then name and value per header.
    private let ends: [Int]
    /// What the job holds, in bytes (``cost(of:)``): what the queue's byte bound counts.
    let cost: Int

    /// What the job of `delivery` holds, in bytes: the request's bytes, the ends and the rest of the job.
    static func cost(of delivery: Delivery) -> Int {
        var size = delivery.method.utf8.count + delivery.path.utf8.count + delivery.body.count
        for field in delivery.headers { size += field.name.utf8.count + field.value.utf8.count }
        return size + (2 + 2 * delivery.headers.count) * MemoryLayout<Int>.size + 128
    }

    init(deliveryID: UInt64, delivery: Delivery, upstream: String) {
        self.deliveryID = deliveryID
        service = delivery.service
        self.upstream = upstream
        status = delivery.status
        reason = delivery.reason
        outcome = delivery.outcome
        cost = Self.cost(of: delivery)
        var size = delivery.method.utf8.count + delivery.path.utf8.count + delivery.body.count
        for field in delivery.headers { size += field.name.utf8.count + field.value.utf8.count }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        var ends: [Int] = []
        ends.reserveCapacity(2 + 2 * delivery.headers.count)
        bytes.append(contentsOf: delivery.method.utf8)
        ends.append(bytes.count)
        bytes.append(contentsOf: delivery.path.utf8)
        ends.append(bytes.count)
        for field in delivery.headers {
            bytes.append(contentsOf: field.name.utf8)
            ends.append(bytes.count)
            bytes.append(contentsOf: field.value.utf8)
            ends.append(bytes.count)
        }
        bytes.append(contentsOf: delivery.body)
        self.bytes = bytes
        self.ends = ends
    }

    private func text(_ index: Int) -> String {
        String(decoding: bytes[(index == 0 ? 0 : ends[index - 1])..<ends[index]], as: UTF8.self)
    }

    var method: String { text(0) }
    var path: String { text(1) }

    /// The request's headers, in order.
    var headers: [(name: String, value: String)] {
        stride(from: 2, to: ends.count, by: 2).map { (name: text($0), value: text($0 + 1)) }
    }

    var body: [UInt8] { Array(bytes[ends[ends.count - 1]...]) }
}
