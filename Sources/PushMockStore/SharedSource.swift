import PushMockBytes
package import PushMockCore

/// What a connection's shared delivery fields were packed from. A connection's requests repeat
/// their headers, and the transport hands out the same `String` for a value it received before,
/// so the next delivery made of the same strings is known to pack to the same shared bytes
/// without packing and comparing them. Strings are compared by their UTF-8 bytes (identical
/// storage at once), never by `==`, which equates different bytes that are canonically equivalent.
package struct SharedSource: Sendable {
    let httpVersion: String
    let environment: String?
    let method: String
    let identity: String?
    let pushType: String?
    let topic: String?
    let project: String?
    let headers: [HeaderField]
    /// Which header values are volatile (kept with each delivery, not shared): not compared.
    let volatile: UInt64

    package init(_ delivery: borrowing Delivery, volatile: UInt64) {
        httpVersion = delivery.httpVersion
        environment = delivery.environment
        method = delivery.method
        identity = delivery.identity
        pushType = delivery.pushType
        topic = delivery.topic
        project = delivery.project
        headers = delivery.headers
        self.volatile = volatile
    }

    /// Whether `delivery`, whose volatile headers are `volatile`, packs to the same shared bytes.
    package func matches(_ delivery: borrowing Delivery, volatile: UInt64) -> Bool {
        guard volatile == self.volatile, Self.same(method, delivery.method), Self.same(httpVersion, delivery.httpVersion),
            Self.same(environment, delivery.environment), Self.same(identity, delivery.identity), Self.same(pushType, delivery.pushType),
            Self.same(topic, delivery.topic), Self.same(project, delivery.project)
        else { return false }
        return headers.withElementView { kept in
            delivery.headers.withElementView { now in
                guard kept.count == now.count else { return false }
                for index in 0..<kept.count {
                    guard Self.same(kept[index].name, now[index].name) else { return false }
                    if index >= 64 || volatile & (1 << UInt64(index)) == 0 {
                        guard Self.same(kept[index].value, now[index].value) else { return false }
                    }
                }
                return true
            }
        }
    }

    @inline(__always)
    static func same(_ a: String?, _ b: String?) -> Bool {
        a.hasSameUTF8(as: b)
    }

    @inline(__always)
    static func same(_ a: String, _ b: String) -> Bool {
        a.hasSameUTF8(as: b)
    }
}
