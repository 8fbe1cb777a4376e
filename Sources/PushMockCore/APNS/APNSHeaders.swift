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
        // The fields read in place (a loop over the array's elements copies each one), by the
        // name the HTTP/2 transport found (no string comparison), or found here for a field it
        // did not look up.
        for index in headers.indices {
            var known = headers[index].knownName
            if case .unchecked = known { known = Self.knownName(headers[index].name) }
            switch known {
            case .apnsID: Self.set(&apnsID, &duplicate, headers[index])
            case .apnsExpiration: Self.set(&expiration, &duplicate, headers[index])
            case .apnsPriority: Self.set(&priority, &duplicate, headers[index])
            case .apnsTopic: Self.set(&topic, &duplicate, headers[index])
            case .apnsPushType: Self.set(&pushType, &duplicate, headers[index])
            case .apnsCollapseID: Self.set(&collapseID, &duplicate, headers[index])
            case .authorization: Self.set(&authorization, &duplicate, headers[index])
            default: continue  // APNs ignores headers it does not document
            }
        }
    }

    /// Which of the headers APNs reads `name` is (``KnownHeaderName/other`` for any other):
    /// by length first, one string comparison per header instead of up to seven.
    private static func knownName(_ name: String) -> KnownHeaderName {
        switch name.utf8.count {
        case 7 where name == "apns-id": .apnsID
        case 15 where name == "apns-expiration": .apnsExpiration
        case 13 where name == "apns-priority": .apnsPriority
        case 10 where name == "apns-topic": .apnsTopic
        case 14 where name == "apns-push-type": .apnsPushType
        case 16 where name == "apns-collapse-id": .apnsCollapseID
        case 13 where name == "authorization": .authorization
        default: .other
        }
    }

    private static func set(_ slot: inout String?, _ duplicate: inout String?, _ field: borrowing HeaderField) {
        if slot != nil, duplicate == nil {
            duplicate = field.name
        }
        slot = field.value
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
