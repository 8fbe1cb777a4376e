import PushMockBytes

/// The byte-level grammar FCM's rules use: registration tokens, topic names, analytics labels,
/// colors, RFC 3339 timestamps, `google.protobuf.Duration` texts and case-insensitive names.
extension FCMWalker {
    // MARK: Bytes

    /// `2026-01-01T00:00:00Z`, with an optional fraction and/or an offset.
    static func isRFC3339(_ bytes: ByteView) -> Bool {
        guard bytes.count >= 20 else { return false }
        for index in [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18] where !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
            return false
        }
        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":")
        else { return false }
        let last = bytes[bytes.count - 1]
        return last == UInt8(ascii: "Z") || last == UInt8(ascii: "z") || bytes.count >= 25
    }

    // MARK: Grammar

    private static let base64URLTable = ImmortalBuffer<Bool>(
        (0..<256).map { value in
            let byte = UInt8(value)
            return (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        })

    static func isBase64URL(_ byte: UInt8) -> Bool {
        base64URLTable[Int(byte)]
    }

    /// Whether `bytes[start..<end]` are all base64url characters: sixteen, then eight at a time
    /// while they are (a registration token is ~150 of them), then byte by byte.
    static func allBase64URL(_ bytes: ByteView, _ start: Int, _ end: Int) -> Bool {
        var index = start
        while index + 16 <= end, SIMDBytes.allBase64URL(bytes.loadSIMD16(at: index)) {
            index += 16
        }
        while index + 8 <= end, SWAR.allBase64URL(bytes.loadUInt64(at: index)) {
            index += 8
        }
        let table = base64URLTable  // read once: each read of a static checks that it is made
        while index < end {
            guard table[Int(bytes[index])] else { return false }
            index += 1
        }
        return true
    }

    static func isTopicByte(_ byte: UInt8) -> Bool {
        isBase64URL(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "~") || byte == UInt8(ascii: "%")
    }

    static func isTopicName(_ topic: String) -> Bool {
        !topic.isEmpty && topic.utf8.count <= 900 && topic.utf8.allSatisfy(isTopicByte)
    }

    static func isHexColor(_ bytes: ByteView) -> Bool {
        bytes.count == 7 && bytes[0] == UInt8(ascii: "#") && bytes[1...].allSatisfy { JSONScanner.hexValue($0) != nil }
    }

    /// A Firebase installation ID's shape: 22 base64url characters (a 128-bit value whose first
    /// four bits are `0111`), so the first is `c`, `d`, `e` or `f`.
    static func isInstallationID(_ fid: String) -> Bool {
        let bytes = fid.utf8
        guard bytes.count == 22, let first = bytes.first, (UInt8(ascii: "c")...UInt8(ascii: "f")).contains(first) else { return false }
        return bytes.allSatisfy(isBase64URL)
    }

    /// `<instance id>:<token>` in base64url; strict also wants the `APA91b` prefix and a real length.
    static func isRegistrationToken(_ token: String, strict: Bool) -> Bool {
        return token.withUTF8View { bytes in
            guard let colon = bytes.firstIndex(byte: UInt8(ascii: ":")), colon > 0, colon < bytes.count - 1 else { return false }
            guard allBase64URL(bytes, colon + 1, bytes.count), allBase64URL(bytes, 0, colon) else { return false }
            guard strict else { return true }
            let marker: StaticString = "APA91b"
            guard bytes.count >= 100, bytes.count <= 4096, bytes.count - colon - 1 >= marker.utf8CodeUnitCount else { return false }
            for offset in 0..<marker.utf8CodeUnitCount where bytes[colon + 1 + offset] != marker.utf8Start[offset] {
                return false
            }
            return true
        }
    }
}

/// `google.protobuf.Duration` text: `<seconds>[.<fraction up to 9 digits>]s`.
enum FCMDuration {
    static func seconds(_ text: String) -> Double? {
        return text.withUTF8View(seconds)
    }

    static func seconds(_ bytes: ByteView) -> Double? {
        guard bytes.count >= 2, bytes[bytes.count - 1] == UInt8(ascii: "s") else { return nil }
        var whole: Double = 0
        var fraction: Double = 0
        var scale: Double = 1
        var digits = 0
        var fractionDigits = -1
        for index in 0..<(bytes.count - 1) {
            let byte = bytes[index]
            if byte == UInt8(ascii: ".") {
                guard fractionDigits < 0, digits > 0 else { return nil }
                fractionDigits = 0
                continue
            }
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let value = Double(byte - UInt8(ascii: "0"))
            if fractionDigits >= 0 {
                fractionDigits += 1
                guard fractionDigits <= 9 else { return nil }
                scale /= 10
                fraction += value * scale
            } else {
                digits += 1
                guard digits <= 12 else { return nil }
                whole = whole * 10 + value
            }
        }
        guard digits > 0, fractionDigits != 0 else { return nil }
        return whole + fraction
    }
}
