import Testing

/// Checks that a check of a run of bytes at once (eight in a word, sixteen in a vector) agrees
/// with the byte-by-byte rule it stands for.
enum ByteRunCheck {
    /// Records an issue for every run where `all` and `each` over its bytes disagree: `base` (which
    /// must pass) with every byte value in every position, and 20 000 random runs of its length.
    static func agrees(_ all: ([UInt8]) -> Bool, with each: (UInt8) -> Bool, base text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let base = Array(text.utf8)
        #expect(all(base), "the base run passes", sourceLocation: sourceLocation)
        for position in base.indices {
            for value in 0...255 {
                var bytes = base
                bytes[position] = UInt8(value)
                #expect(all(bytes) == each(UInt8(value)), "byte \(value) at \(position)", sourceLocation: sourceLocation)
            }
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let bytes = (0..<base.count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(all(bytes) == bytes.allSatisfy(each), "run \(bytes)", sourceLocation: sourceLocation)
        }
    }

    /// Eight bytes as the word ``PushMockBytes/ByteView/loadUInt64(at:)`` reads (the first lowest).
    static func word(_ bytes: [UInt8]) -> UInt64 {
        precondition(bytes.count == 8)
        return bytes.enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
    }
}
