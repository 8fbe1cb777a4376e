import PushMockStore

/// The integer the SQLite store indexes a device token by (`delivery.token_key`), instead of the
/// token's text: an index entry of about 15 bytes instead of about 90, compared as one integer
/// instead of a 64-byte `memcmp` at every level of the B-tree. Two tokens may share a key, so a
/// query by token asks for both the key and the token.
///
/// The function is stored in every file: it must never change. 64-bit words are mixed with a
/// multiply and a shift, then the tail bytes, then the length.
///
/// ```swift
/// let key = SQLiteTokenKey.of("a1b2…")   // what `token_key = ?` is given
/// ```
package enum SQLiteTokenKey {
    /// The key of `token` (the lowercased device token, as the store keeps it).
    package static func of(_ token: String) -> Int64 {
        var token = token
        return token.withUTF8 { of($0) }
    }

    /// The key of a token's UTF-8 bytes.
    package static func of(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64 {
        var hash: UInt64 = 0x9E37_79B9_7F4A_7C15
        let raw = UnsafeRawBufferPointer(bytes)
        var offset = 0
        while offset + 8 <= raw.count {
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            hash = (hash ^ word) &* 0xFF51_AFD7_ED55_8CCD
            hash ^= hash >> 32
            offset += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while offset < raw.count {
            tail |= UInt64(raw[offset]) << shift
            shift += 8
            offset += 1
        }
        hash = (hash ^ tail ^ (UInt64(raw.count) << 56)) &* 0xC4CE_B9FE_1A85_EC53
        hash ^= hash >> 29
        return Int64(bitPattern: hash)
    }
}
