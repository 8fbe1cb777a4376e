package import PushMockCore

/// The waits registered on a store: each wants `count` more deliveries matching its filter and is
/// fired once it has them. A value type kept inside a store's lock; callbacks are returned to be
/// called outside it.
package struct WaiterTable {
    package init() {}

    private struct Waiter {
        var filter: DeliveryFilter
        var remaining: Int
        var callback: @Sendable () -> Void
    }

    private var waiters: [UInt64: Waiter] = [:]
    private var next: UInt64 = 1

    /// Waits registered now.
    package var count: Int { waiters.count }

    /// Registers a wait for `count` deliveries matching `filter`; returns its id.
    package mutating func add(_ filter: DeliveryFilter, count: Int, _ callback: @escaping @Sendable () -> Void) -> UInt64 {
        let id = next
        next += 1
        waiters[id] = Waiter(filter: filter, remaining: count, callback: callback)
        return id
    }

    /// Counts `delivery` for every wait it matches; returns the callbacks of those now satisfied.
    package mutating func record(_ delivery: Delivery) -> [@Sendable () -> Void] {
        var fired: [@Sendable () -> Void] = []
        for (key, var waiter) in waiters where waiter.filter.matches(delivery) {
            waiter.remaining -= 1
            if waiter.remaining <= 0 {
                fired.append(waiter.callback)
                waiters[key] = nil
            } else {
                waiters[key] = waiter
            }
        }
        return fired
    }

    /// Counts `existing` deliveries found for wait `id` after it was registered; true when it is
    /// satisfied (or was fired meanwhile) and so removed.
    package mutating func credit(_ id: UInt64, existing: Int) -> Bool {
        guard var waiter = waiters[id] else { return true }
        waiter.remaining -= existing
        if waiter.remaining <= 0 {
            waiters[id] = nil
            return true
        }
        waiters[id] = waiter
        return false
    }

    /// Forgets wait `id`.
    package mutating func remove(_ id: UInt64) {
        waiters[id] = nil
    }
}
