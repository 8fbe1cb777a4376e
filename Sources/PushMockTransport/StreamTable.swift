/// A connection's open streams by id. Client streams are odd and increasing, so the streams in
/// flight are a window of consecutive ids: each goes into the slot its id names in a ring (id / 2,
/// modulo the ring's size), found again with one compare and no hashing (a `Dictionary` hashed
/// every id with SipHash three times per request). A stream whose slot is still held by an older
/// one (open for a whole ring of newer streams) goes into a small overflow dictionary, and a
/// ring that overflows grows, so the common case stays one probe whatever the window.
struct StreamTable<Value: AnyObject> {
    private var keys: [Int32]
    private var values: [Value?]
    private var mask: Int
    private var overflow: [Int32: Value] = [:]
    private(set) var count = 0

    /// The ring never grows past this many slots; beyond it, the overflow takes the rest.
    static var maximumSlots: Int { 8192 }

    /// An empty table whose ring starts with `slots` slots (rounded up to a power of two).
    init(slots: Int = 128) {
        var size = 16
        while size < slots { size <<= 1 }
        keys = [Int32](repeating: 0, count: size)
        values = [Value?](repeating: nil, count: size)
        mask = size - 1
    }

    @inline(__always)
    private func slot(_ id: Int32) -> Int {
        Int(truncatingIfNeeded: UInt32(bitPattern: id) >> 1) & mask
    }

    /// The stream `id` (stream ids are positive; 0 marks a free slot).
    subscript(id: Int32) -> Value? {
        get {
            let slot = slot(id)
            if keys[slot] == id, id != 0 { return values[slot] }
            return overflow.isEmpty ? nil : overflow[id]
        }
        set {
            precondition(id > 0, "stream ids are positive")
            if let newValue {
                insert(newValue, for: id)
            } else {
                _ = removeValue(forKey: id)
            }
        }
    }

    private mutating func insert(_ value: Value, for id: Int32) {
        let slot = slot(id)
        if keys[slot] == id {
            values[slot] = value
        } else if keys[slot] == 0, overflow.isEmpty || overflow[id] == nil {
            keys[slot] = id
            values[slot] = value
            count += 1
        } else if overflow.updateValue(value, forKey: id) == nil {
            count += 1
            if overflow.count > 8, keys.count < Self.maximumSlots { grow() }
        }
    }

    /// Removes and returns the stream `id`.
    mutating func removeValue(forKey id: Int32) -> Value? {
        let slot = slot(id)
        if keys[slot] == id, id != 0 {
            let removed = values[slot]
            keys[slot] = 0
            values[slot] = nil
            count -= 1
            return removed
        }
        guard !overflow.isEmpty, let removed = overflow.removeValue(forKey: id) else { return nil }
        count -= 1
        return removed
    }

    mutating func removeAll() {
        for index in keys.indices where keys[index] != 0 {
            keys[index] = 0
            values[index] = nil
        }
        overflow.removeAll()
        count = 0
    }

    /// A ring twice as large, everything reinserted.
    private mutating func grow() {
        var entries = Array(overflow)
        for index in keys.indices where keys[index] != 0 {
            if let value = values[index] { entries.append((keys[index], value)) }
        }
        let size = keys.count * 2
        keys = [Int32](repeating: 0, count: size)
        values = [Value?](repeating: nil, count: size)
        mask = size - 1
        overflow = [:]
        count = 0
        for (id, value) in entries { insert(value, for: id) }
    }
}
