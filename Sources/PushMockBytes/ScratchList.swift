/// Values appended one after another in memory an owner keeps from use to use (a JSON
/// tape's entries, rebuilt for each body a connection reads). An array appended to checks that its
/// storage is uniquely referenced and writes its count back on every append, about 20
/// instructions each (a tape of 40 entries: 800); this checks only its capacity. Reads and writes
/// are bounds-checked like an array's.
///
/// A reference type: every copy of a value holding one sees the same elements, and
/// ``removeAll()`` empties it for all of them. Not thread-safe: one owner, one thread at a time.
///
/// ```swift
/// let list = ScratchList<Int>(capacity: 4)
/// list.append(7)
/// list[0]         // 7
/// list.removeAll()  // the capacity is kept
/// ```
public final class ScratchList<Element>: RandomAccessCollection, @unchecked Sendable {
    @usableFromInline
    @exclusivity(unchecked) var base: UnsafeMutablePointer<Element>
    /// How many elements fit before the memory is replaced by a larger block.
    @exclusivity(unchecked) public private(set) var capacity: Int
    @usableFromInline
    @exclusivity(unchecked) var stored = 0

    /// An empty list with room for `capacity` elements (at least one).
    public init(capacity: Int) {
        self.capacity = Swift.max(capacity, 1)
        base = .allocate(capacity: self.capacity)
    }

    deinit {
        base.deinitialize(count: stored)
        base.deallocate()
    }

    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { stored }
    @inlinable public var count: Int { stored }

    /// The element at `index`, which must be below ``count``.
    @inlinable
    public subscript(index: Int) -> Element {
        get {
            precondition(index >= 0 && index < stored, "ScratchList index out of range")
            return base[index]
        }
        set {
            precondition(index >= 0 && index < stored, "ScratchList index out of range")
            base[index] = newValue
        }
    }

    /// Adds `element` at the end, moving the elements to a block twice as large when full.
    @inlinable
    public func append(_ element: Element) {
        if stored == capacity { grow() }
        (base + stored).initialize(to: element)
        stored += 1
    }

    /// Forgets every element and keeps the memory.
    @inlinable
    public func removeAll() {
        base.deinitialize(count: stored)  // nothing to do for plain values
        stored = 0
    }

    @usableFromInline
    func grow() {
        let larger = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
        larger.moveInitialize(from: base, count: stored)
        base.deallocate()
        base = larger
        capacity *= 2
    }
}
