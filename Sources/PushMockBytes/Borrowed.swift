/// A value lent to a closure without a copy (a closure that captures a large struct may copy it
/// whole, with a retain and a release of each part): read it through ``value``, inside the call.
@frozen
public struct Borrowed<Value> {
    @usableFromInline
    let pointer: UnsafePointer<Value>

    @inlinable
    init(_ pointer: UnsafePointer<Value>) {
        self.pointer = pointer
    }

    /// The value, read in place.
    @inlinable
    public var value: Value {
        _read { yield pointer.pointee }
    }
}

/// Calls `body` with `value` lent in place.
@inlinable
public func withBorrowed<Value, Result>(_ value: Value, _ body: (Borrowed<Value>) throws -> Result) rethrows -> Result {
    try withUnsafePointer(to: value) { try body(Borrowed($0)) }
}

/// The elements of an array read in place, without retaining each as it is read.
@frozen
public struct ElementView<Element>: RandomAccessCollection {
    @usableFromInline
    let buffer: UnsafeBufferPointer<Element>

    @inlinable
    init(_ buffer: UnsafeBufferPointer<Element>) {
        self.buffer = buffer
    }

    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { buffer.count }

    @inlinable
    public subscript(position: Int) -> Element {
        _read { yield buffer[position] }
    }
}

extension Array {
    /// Calls `body` with the elements read in place.
    @inlinable
    public func withElementView<Result>(_ body: (ElementView<Element>) throws -> Result) rethrows -> Result {
        try withUnsafeBufferPointer { try body(ElementView($0)) }
    }
}

extension String {
    /// Whether the two strings have the same UTF-8 bytes: at once when they are the same value
    /// bit for bit (the same small string, or the same storage), else compared in place.
    @inlinable @inline(__always)
    public func hasSameUTF8(as other: String) -> Bool {
        if unsafeBitCast(self, to: (UInt64, UInt64).self) == unsafeBitCast(other, to: (UInt64, UInt64).self) { return true }
        let compared = utf8.withContiguousStorageIfAvailable { x in
            other.utf8.withContiguousStorageIfAvailable { y in ByteView(x).equals(ByteView(y)) }
        }
        return (compared ?? nil) ?? utf8.elementsEqual(other.utf8)
    }
}
