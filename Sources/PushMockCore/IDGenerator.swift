import PushMockBytes

/// Makes request ids (`apns-id`, delivery ids) fast: a seeded xoshiro256** generator formatted as
/// an uppercase RFC 9562 version-4 UUID in place, about 50 ns, where Foundation's `UUID()` reads
/// /dev/urandom on every call (1–2 µs). Seeded, so tests can assert exact ids.
///
/// Not thread-safe: keep one per event loop, or one behind a lock.
///
/// ```swift
/// var ids = IDGenerator(seed: 42)
/// let apnsID = ids.nextUUIDString()   // "9C0E1D2B-…", the same for the same seed
/// ```
public struct IDGenerator: Sendable {
    private var state: (UInt64, UInt64, UInt64, UInt64)

    /// A generator whose sequence is fixed by `seed`.
    public init(seed: UInt64) {
        var splitMix = seed
        func next() -> UInt64 {
            splitMix &+= 0x9E37_79B9_7F4A_7C15
            var z = splitMix
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        state = (next(), next(), next(), next())
    }

    /// A generator seeded from the system's random source.
    public init() {
        var system = SystemRandomNumberGenerator()
        self.init(seed: system.next())
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        let result = rotl(state.1 &* 5, 7) &* 9
        let t = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= t
        state.3 = rotl(state.3, 45)
        return result
    }

    /// The next id as a version-4 UUID string (`8-4-4-4-12` hex digits), uppercase unless asked.
    public mutating func nextUUIDString(lowercase: Bool = false) -> String {
        var high = next()
        var low = next()
        high = (high & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000  // version 4
        low = (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000  // RFC variant
        return String(asciiCapacity: 36) { $0.putUUID(high: high, low: low, uppercase: !lowercase) }
    }

    private func rotl(_ x: UInt64, _ k: UInt64) -> UInt64 {
        (x << k) | (x >> (64 - k))
    }
}
