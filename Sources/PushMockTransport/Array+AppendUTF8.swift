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
