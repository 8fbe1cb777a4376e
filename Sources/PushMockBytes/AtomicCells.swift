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

    public func add(_ index: Int, _ amount: Int) {
        precondition(index >= 0 && index < header)
        withUnsafeMutablePointerToElements { _ = $0[index].wrappingAdd(amount, ordering: .relaxed) }
    }

    public func load(_ index: Int) -> Int {
        precondition(index >= 0 && index < header)
        return withUnsafeMutablePointerToElements { $0[index].load(ordering: .relaxed) }
    }
}
