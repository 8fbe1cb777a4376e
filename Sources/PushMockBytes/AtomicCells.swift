public import Synchronization

/// Integers updated with relaxed atomic adds, in one allocation.
public final class AtomicCells: ManagedBuffer<Int, Atomic<Int>> {
    public static func make(count: Int) -> AtomicCells {
        let cells = unsafeDowncast(create(minimumCapacity: count) { _ in count }, to: AtomicCells.self)
        cells.withUnsafeMutablePointerToElements { elements in
            for index in 0..<count { (elements + index).initialize(to: Atomic(0)) }
        }
        return cells
    }

    // The count is read through its pointer: reading `header` itself is an access the runtime
    // checks for exclusivity (a call on every add).

    public func add(_ index: Int, _ amount: Int) {
        withUnsafeMutablePointers { count, elements in
            precondition(index >= 0 && index < count.pointee)
            _ = elements[index].wrappingAdd(amount, ordering: .relaxed)
        }
    }

    public func load(_ index: Int) -> Int {
        withUnsafeMutablePointers { count, elements in
            precondition(index >= 0 && index < count.pointee)
            return elements[index].load(ordering: .relaxed)
        }
    }
}
