/// The APNs request headers, found in one pass; the first repeated one is remembered.
struct APNSHeaders {
    var apnsID: String?
    var expiration: String?
    var priority: String?
    var topic: String?
    var pushType: String?
    var collapseID: String?
    var authorization: String?
    var duplicate: String?

    init(_ headers: [HeaderField]) {
        for field in headers {
            let (name, value) = (field.name, field.value)
            // By length first: one string comparison per header instead of up to seven.
            switch name.utf8.count {
            case 7 where name == "apns-id": Self.set(&apnsID, &duplicate, name, value)
            case 15 where name == "apns-expiration": Self.set(&expiration, &duplicate, name, value)
            case 13 where name == "apns-priority": Self.set(&priority, &duplicate, name, value)
            case 10 where name == "apns-topic": Self.set(&topic, &duplicate, name, value)
            case 14 where name == "apns-push-type": Self.set(&pushType, &duplicate, name, value)
            case 16 where name == "apns-collapse-id": Self.set(&collapseID, &duplicate, name, value)
            case 13 where name == "authorization": Self.set(&authorization, &duplicate, name, value)
            default: continue  // APNs ignores headers it does not document
            }
        }
    }

    private static func set(_ slot: inout String?, _ duplicate: inout String?, _ name: String, _ value: String) {
        if slot != nil, duplicate == nil {
            duplicate = name
        }
        slot = value
    }

    /// A canonical UUID: 8-4-4-4-12 hex digits, either case.
    static func isUUID(_ text: String) -> Bool {
        var count = 0
        for byte in text.utf8 {
            switch count {
            case 8, 13, 18, 23:
                guard byte == UInt8(ascii: "-") else { return false }
            default:
                guard JSONScanner.hexValue(byte) != nil else { return false }
            }
            count += 1
        }
        return count == 36
    }
}
