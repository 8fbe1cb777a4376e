import PushMockBytes

/// The device path, read once per connection and device (stage 2).
extension APNSValidator {
    /// `path` read as a device path: its shape and token, kept for the connection's next push
    /// (the same path is not read again).
    @inline(__always)
    static func read(devicePath path: String, auth: inout APNSConnectionAuth) -> APNSConnectionAuth.ReadDevicePath {
        if let last = auth.lastDevicePath, last.path.hasSameUTF8(as: path) { return last }
        let shape = devicePathShape(path)
        // The shape proves there is a token, and nothing after it.
        let token = if case .token = shape { APNSDevicePath.token(ofDevicePath: path) } else { String?.none }
        let read = APNSConnectionAuth.ReadDevicePath(path: path, shape: shape, token: token)
        auth.lastDevicePath = read
        return read
    }

    package enum DevicePathShape: Hashable, Sendable {
        case badPath
        case missingToken
        case token(isEvenHex: Bool)
    }

    /// `/3/device/<token>` in one pass over the bytes.
    package static func devicePathShape(_ path: String) -> DevicePathShape {
        return path.withUTF8View { bytes -> DevicePathShape in
            let prefix: StaticString = "/3/device/"
            let prefixLength = prefix.utf8CodeUnitCount
            if bytes.count == prefixLength - 1 || bytes.count == prefixLength {
                // "/3/device" or "/3/device/"
                for index in 0..<bytes.count where bytes[index] != prefix.utf8Start[index] {
                    return .badPath
                }
                return .missingToken
            }
            guard bytes.count > prefixLength else { return .badPath }
            for index in 0..<prefixLength where bytes[index] != prefix.utf8Start[index] {
                return .badPath
            }
            var hex = (bytes.count - prefixLength) % 2 == 0
            // Sixteen, then eight hex digits at a time (a token is 64 of them); a run with
            // anything else is looked at byte by byte below, from its start.
            var start = prefixLength
            while start + 16 <= bytes.count, SIMDBytes.allHexDigits(bytes.loadSIMD16(at: start)) {
                start += 16
            }
            while start + 8 <= bytes.count, SWAR.allHexDigits(bytes.loadUInt64(at: start)) {
                start += 8
            }
            for index in start..<bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") { return .badPath }
                if hex, JSONScanner.hexValue(byte) == nil { hex = false }
            }
            return .token(isEvenHex: hex)
        }
    }
}
