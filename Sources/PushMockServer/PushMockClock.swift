import Foundation
public import PushMockCore
import Synchronization

/// Where PushMock reads the time (DESIGN.md: time is injected, so tests can freeze it at the
/// one-hour JWT limit or jump eight hours).
///
/// ```swift
/// let clock = PushMockClock.manual(startingAt: 1_767_225_600_000)
/// clock.advance(byMilliseconds: 3_601_000)
/// ```
public struct PushMockClock: Sendable {
    private let read: @Sendable () -> Int64
    private let manual: ManualTime?

    /// The system's wall clock.
    public static let system = PushMockClock(read: { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }, manual: nil)

    /// A clock that stands still until advanced.
    public static func manual(startingAt milliseconds: Int64) -> PushMockClock {
        let time = ManualTime(milliseconds)
        return PushMockClock(read: { time.value }, manual: time)
    }

    private init(read: @escaping @Sendable () -> Int64, manual: ManualTime?) {
        self.read = read
        self.manual = manual
    }

    /// The instant now.
    public var now: PushInstant { PushInstant(millisecondsSinceEpoch: read()) }

    /// Milliseconds since the epoch.
    public var nowMilliseconds: Int64 { read() }

    /// Seconds since the epoch.
    public var nowSeconds: Int64 { read() / 1000 }

    /// Moves a manual clock forward (a no-op on the system clock).
    public func advance(byMilliseconds milliseconds: Int64) {
        manual?.advance(milliseconds)
    }

    /// Sets a manual clock (a no-op on the system clock).
    public func set(milliseconds: Int64) {
        manual?.set(milliseconds)
    }

    private final class ManualTime: Sendable {
        private let storage: Mutex<Int64>
        init(_ value: Int64) { storage = Mutex(value) }
        var value: Int64 { storage.withLock { $0 } }
        func advance(_ delta: Int64) { storage.withLock { $0 += delta } }
        func set(_ value: Int64) { storage.withLock { $0 = value } }
    }
}
