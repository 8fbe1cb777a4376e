import Testing

/// Checks a SWAR test of eight bytes against the byte-by-byte rule it stands for: every byte value
/// in every position of a word that passes, and random words.
enum EightByteCheck {
    /// Records an issue for every word where `all` and `each` over its bytes disagree. `base` must
    /// pass (its bytes, lowest first).
    static func agrees(_ all: (UInt64) -> Bool, with each: (UInt8) -> Bool, base text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let bytes = Array(text.utf8)
        precondition(bytes.count == 8)
        let base = bytes.enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
        #expect(all(base), "the base word passes", sourceLocation: sourceLocation)
        for position in 0..<8 {
            for value in 0...255 {
                let word = (base & ~(0xFF << (8 * UInt64(position)))) | (UInt64(value) << (8 * UInt64(position)))
                #expect(all(word) == each(UInt8(value)), "byte \(value) at \(position)", sourceLocation: sourceLocation)
            }
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let word = generator.next() as UInt64
            let bytes = (0..<8).map { UInt8(truncatingIfNeeded: word >> (8 * UInt64($0))) }
            #expect(all(word) == bytes.allSatisfy(each), "word \(word)", sourceLocation: sourceLocation)
        }
    }
}
