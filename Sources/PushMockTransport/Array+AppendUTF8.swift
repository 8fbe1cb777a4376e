extension [UInt8] {
    /// Appends a string's UTF-8 by one copy (a native string's bytes are contiguous; the generic
    /// `append(contentsOf: string.utf8)` walks them one by one).
    mutating func appendUTF8(_ string: String) {
        if string.utf8.withContiguousStorageIfAvailable({ self.append(contentsOf: $0) }) == nil {
            var copy = string
            copy.withUTF8 { self.append(contentsOf: $0) }
        }
    }
}

extension [UInt8] {
    /// Appends a non-negative number's decimal digits (a negative one is written as 0).
    mutating func appendDecimal(_ number: Int) {
        let start = count
        var rest = Swift.max(number, 0)
        repeat {
            append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        // Reversed in place (`self[start...].reverse()` copies the array to write its slice).
        var (low, high) = (start, count - 1)
        while low < high {
            swapAt(low, high)
            low += 1
            high -= 1
        }
    }
}
