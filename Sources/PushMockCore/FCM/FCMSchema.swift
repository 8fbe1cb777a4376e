import PushMockBytes

/// The FCM HTTP v1 message schema (fcm.md §3), as proto3 JSON sees it: field names in snake_case
/// (lowerCamelCase is accepted too) and their types.
///
/// It is declared as a tree (``Declared``) and compiled once into flat tables of trivial values
/// (``Tables``), so that walking a request never retains, copies or hashes anything:
/// - every field has an index; a message type's own fields are contiguous, and its whole subtree
///   (its fields, their message types' fields, …) is one range after them;
/// - every message type appears once in the tree, so a field's index also names its place in a
///   request (`message.android.ttl`), and the walker keeps one slot per field: the tape index of
///   the field's value in the request being walked.
struct FCMSchema: Sendable {
    /// A field's type.
    enum Kind: UInt8, Sendable {
        case string, bool, int32, float
        /// A `google.protobuf.Duration` string such as `"3.5s"`.
        case duration
        /// An RFC 3339 timestamp string.
        case timestamp
        /// An enum; `argument` is the index of its spellings.
        case enumeration
        /// `map<string,string>`.
        case stringMap
        /// A message; `argument` is its type.
        case message
        case repeatedString
        case repeatedDuration
        /// A free JSON object (`apns.payload`, `webpush.notification`).
        case freeObject
    }

    /// The schema as written: a tree of message types.
    indirect enum Declared {
        case string, bool, int32, float, duration, timestamp, stringMap, repeatedString, repeatedDuration, freeObject
        case enumeration([String])
        /// A message type: its proto name and its fields in order.
        case type(String, [(name: String, declared: Declared)])

        /// A message type, its fields written as a dictionary literal.
        static func message(_ name: String, _ members: KeyValuePairs<String, Declared>) -> Declared {
            .type(name, members.map { (name: $0.key, declared: $0.value) })
        }

        /// A message type with `base`'s fields (a message type) and then `more`.
        static func message(_ name: String, extending base: Declared, _ more: KeyValuePairs<String, Declared>) -> Declared {
            guard case .type(_, let fields) = base else { preconditionFailure("only a message type can be extended") }
            return .type(name, fields + more.map { (name: $0.key, declared: $0.value) })
        }
    }

    /// Where some bytes are in ``Tables/names``.
    struct Span: Sendable {
        var start: Int32
        var count: Int32
    }

    /// One field, all trivial.
    struct Field: Sendable {
        var kind: Kind
        /// The message type (``Kind/message``) or the enum (``Kind/enumeration``); -1 otherwise.
        var argument: Int32
        var snake: Span
        /// The lowerCamelCase spelling (the same span as `snake` when they are equal).
        var camel: Span
        /// The first eight bytes of each spelling (``PushMockBytes/ByteView/headWord``): a key
        /// that is not this field is nearly always told apart by its length and this word.
        var snakeHead: UInt64
        var camelHead: UInt64
    }

    /// One message type, all trivial.
    struct MessageType: Sendable {
        /// Its own fields: `first..<first + count`.
        var first: Int32
        var count: Int32
        /// The end of its subtree's fields (`first..<subtreeEnd` are all fields under it).
        var subtreeEnd: Int32
        /// Whether a `null` member leaves the field as it was (the request and message levels)
        /// rather than clearing it (every level below: the last member wins, `null` included).
        var nullKeepsEarlier: Bool
        /// Its key table: `keyMask + 1` slots of ``Tables/keys`` from `keySlots`.
        var keySlots: Int32 = 0
        var keyMask: Int32 = 0
    }

    /// One spelling of a field in a message type's key table, open-addressed by
    /// ``keyHash(head:count:)``: a key is found in one or two probes, where a scan of the type's
    /// fields compared it with each of them.
    struct KeySlot: Sendable {
        /// The spelling's first eight bytes (``PushMockBytes/ByteView/headWord``).
        var head: UInt64
        var spelling: Span
        /// The field, or -1 for an empty slot.
        var field: Int32
    }

    /// Where a key of `count` bytes starting with `head` is looked for first (before the mask).
    @inline(__always)
    static func keyHash(head: UInt64, count: Int) -> Int {
        Int(truncatingIfNeeded: ((head ^ UInt64(truncatingIfNeeded: count)) &* 0x9E37_79B9_7F4A_7C15) >> 40)
    }

    /// The hot tables: immortal, never freed, shared by every walk.
    struct Tables: Sendable {
        let fields: ImmortalBuffer<Field>
        let types: ImmortalBuffer<MessageType>
        /// Every field name's and enum spelling's bytes, back to back.
        let names: ImmortalBuffer<UInt8>
        /// The spellings of each enum.
        let enumSpans: ImmortalBuffer<Span>
        /// Where each enum's spellings are in `enumSpans`.
        let enums: ImmortalBuffer<Span>
        /// Every message type's key table, back to back.
        let keys: ImmortalBuffer<KeySlot>
    }

    let tables: Tables
    /// Each field's snake_case name (for paths in error texts).
    let fieldNames: [String]
    /// Each type's proto name (for `Invalid value at … (type.googleapis.com/…)` texts).
    let typeNames: [String]
    /// The request type (`SendMessageRequest`), always 0.
    let request: Int32 = 0

    init(_ root: Declared) {
        var fields: [Field] = []
        var types: [MessageType] = []
        var names: [UInt8] = []
        var enumSpans: [Span] = []
        var enums: [Span] = []
        var fieldNames: [String] = []
        var typeNames: [String] = []
        func span(_ text: String) -> Span {
            defer { names += text.utf8 }
            return Span(start: Int32(names.count), count: Int32(text.utf8.count))
        }
        /// Lays out a type's own fields, then each message-typed field's subtree in turn.
        @discardableResult
        func compile(_ name: String, _ members: [(name: String, declared: Declared)], nullKeepsEarlier: Bool) -> Int32 {
            let type = Int32(types.count)
            let first = Int32(fields.count)
            typeNames.append(name)
            types.append(MessageType(first: first, count: Int32(members.count), subtreeEnd: 0, nullKeepsEarlier: nullKeepsEarlier))
            for (fieldName, declared) in members {
                let snake = span(fieldName)
                let camelName = FCMSchema.camel(fieldName)
                let camel = camelName == fieldName ? snake : span(camelName)
                var field = Field(
                    kind: .string, argument: -1, snake: snake, camel: camel, snakeHead: Array(fieldName.utf8).withByteView(\.headWord),
                    camelHead: Array(camelName.utf8).withByteView(\.headWord))
                switch declared {
                case .string: field.kind = .string
                case .bool: field.kind = .bool
                case .int32: field.kind = .int32
                case .float: field.kind = .float
                case .duration: field.kind = .duration
                case .timestamp: field.kind = .timestamp
                case .stringMap: field.kind = .stringMap
                case .repeatedString: field.kind = .repeatedString
                case .repeatedDuration: field.kind = .repeatedDuration
                case .freeObject: field.kind = .freeObject
                case .enumeration(let spellings):
                    field.kind = .enumeration
                    field.argument = Int32(enums.count)
                    enums.append(Span(start: Int32(enumSpans.count), count: Int32(spellings.count)))
                    enumSpans += spellings.map(span)
                case .type: field.kind = .message
                }
                fields.append(field)
                fieldNames.append(fieldName)
            }
            for (offset, (_, declared)) in members.enumerated() {
                if case .type(let childName, let childMembers) = declared {
                    fields[Int(first) + offset].argument = compile(childName, childMembers, nullKeepsEarlier: false)
                }
            }
            types[Int(type)].subtreeEnd = Int32(fields.count)
            return type
        }
        guard case .type(let name, let members) = root else { preconditionFailure("the schema's root is a message") }
        compile(name, members, nullKeepsEarlier: true)
        // The message level keeps an earlier member when a later one is null, as the request level does.
        types[Int(fields[0].argument)].nullKeepsEarlier = true
        let keys = Self.keyTables(&types, fields: fields)
        self.tables = Tables(
            fields: ImmortalBuffer(fields), types: ImmortalBuffer(types), names: ImmortalBuffer(names), enumSpans: ImmortalBuffer(enumSpans),
            enums: ImmortalBuffer(enums), keys: ImmortalBuffer(keys)
        )
        self.fieldNames = fieldNames
        self.typeNames = typeNames
    }

    /// Every type's key table (its fields' snake_case and lowerCamelCase spellings, at most half
    /// full), back to back; each type learns where its table is.
    private static func keyTables(_ types: inout [MessageType], fields: [Field]) -> [KeySlot] {
        var keys: [KeySlot] = []
        for type in types.indices {
            var spellings: [(head: UInt64, spelling: Span, field: Int32)] = []
            for index in Int(types[type].first)..<Int(types[type].first + types[type].count) {
                let field = fields[index]
                spellings.append((field.snakeHead, field.snake, Int32(index)))
                if field.camel.start != field.snake.start { spellings.append((field.camelHead, field.camel, Int32(index))) }
            }
            var size = 2
            while size < 2 * spellings.count { size *= 2 }
            let start = keys.count
            keys += repeatElement(KeySlot(head: 0, spelling: Span(start: 0, count: 0), field: -1), count: size)
            for (head, spelling, field) in spellings {
                var slot = keyHash(head: head, count: Int(spelling.count)) & (size - 1)
                while keys[start + slot].field >= 0 { slot = (slot + 1) & (size - 1) }
                keys[start + slot] = KeySlot(head: head, spelling: spelling, field: field)
            }
            types[type].keySlots = Int32(start)
            types[type].keyMask = Int32(size - 1)
        }
        return keys
    }

    /// The index of the field at a dotted snake_case path from the request (`message.android.ttl`).
    func field(_ path: String) -> Int {
        var type = request
        var found = -1
        for name in path.split(separator: ".") {
            let own = tables.types[Int(type)]
            guard let index = (Int(own.first)..<Int(own.first + own.count)).first(where: { fieldNames[$0] == name }) else {
                preconditionFailure("no field \(path) in the FCM schema")
            }
            found = index
            type = tables.fields[index].argument
        }
        return found
    }

    /// The lowerCamelCase spelling of a snake_case name.
    static func camel(_ snake: String) -> String {
        var out = ""
        var upper = false
        for character in snake {
            if character == "_" {
                upper = true
                continue
            }
            out.append(upper ? Character(character.uppercased()) : character)
            upper = false
        }
        return out
    }

    static let shared = FCMSchema(request)

    static let fcmOptions = Declared.message("google.firebase.fcm.v1.FcmOptions", ["analytics_label": .string])
    static let notification = Declared.message("google.firebase.fcm.v1.Notification", ["title": .string, "body": .string, "image": .string])
    static let color = Declared.message("google.type.Color", ["red": .float, "green": .float, "blue": .float, "alpha": .float])
    static let lightSettings = Declared.message(
        "google.firebase.fcm.v1.LightSettings",
        [
            "color": color, "light_on_duration": .duration, "light_off_duration": .duration,
        ])
    /// The fields AndroidNotification and AndroidNotificationV2 share.
    static let androidNotificationFields = Declared.message(
        "(shared)",
        [
            "title": .string, "body": .string, "icon": .string, "color": .string, "sound": .string, "tag": .string,
            "click_action": .string, "body_loc_key": .string, "body_loc_args": .repeatedString, "title_loc_key": .string,
            "title_loc_args": .repeatedString, "channel_id": .string, "ticker": .string, "sticky": .bool, "event_time": .timestamp,
            "local_only": .bool,
            "notification_priority": .enumeration([
                "PRIORITY_UNSPECIFIED", "PRIORITY_MIN", "PRIORITY_LOW", "PRIORITY_DEFAULT", "PRIORITY_HIGH", "PRIORITY_MAX",
            ]),
            "default_sound": .bool, "default_vibrate_timings": .bool, "default_light_settings": .bool, "vibrate_timings": .repeatedDuration,
            "visibility": .enumeration(["VISIBILITY_UNSPECIFIED", "PRIVATE", "PUBLIC", "SECRET"]), "notification_count": .int32,
            "light_settings": lightSettings, "image": .string,
        ])
    static let androidNotification = Declared.message(
        "google.firebase.fcm.v1.AndroidNotification", extending: androidNotificationFields,
        ["proxy": .enumeration(["PROXY_UNSPECIFIED", "ALLOW", "DENY", "IF_PRIORITY_LOWERED"]), "bypass_proxy_notification": .bool])
    static let androidFCMOptions = Declared.message("google.firebase.fcm.v1.AndroidFcmOptions", ["analytics_label": .string])
    static let android = Declared.message(
        "google.firebase.fcm.v1.AndroidConfig",
        [
            "collapse_key": .string, "priority": .enumeration(["NORMAL", "HIGH", "normal", "high"]), "ttl": .duration,
            "restricted_package_name": .string, "data": .stringMap, "notification": androidNotification,
            "fcm_options": androidFCMOptions, "direct_boot_ok": .bool, "bandwidth_constrained_ok": .bool,
            "restricted_satellite_ok": .bool,
        ])
    /// `android_v2` (AndroidConfigV2, preview since 2026; fcm.md §3): AndroidConfig without
    /// `priority` and `notification`, and the union `remote_notification` | `background_sync`.
    static let androidNotificationV2 = Declared.message(
        "google.firebase.fcm.v1.AndroidNotificationV2", extending: androidNotificationFields, ["id": .int32])
    static let androidRemoteNotification = Declared.message(
        "google.firebase.fcm.v1.AndroidRemoteNotification",
        ["notification": androidNotificationV2, "mutable_content": .bool, "use_as_v1_data_message": .bool])
    static let androidV2 = Declared.message(
        "google.firebase.fcm.v1.AndroidConfigV2",
        [
            "collapse_key": .string, "ttl": .duration, "restricted_package_name": .string, "data": .stringMap,
            "fcm_options": androidFCMOptions, "direct_boot_ok": .bool, "bandwidth_constrained_ok": .bool,
            "restricted_satellite_ok": .bool, "remote_notification": androidRemoteNotification,
            "background_sync": .message("google.firebase.fcm.v1.AndroidBackgroundSyncMessage", [:]),
        ])
    static let webpushFCMOptions = Declared.message("google.firebase.fcm.v1.WebpushFcmOptions", ["link": .string, "analytics_label": .string])
    static let webpush = Declared.message(
        "google.firebase.fcm.v1.WebpushConfig",
        [
            "headers": .stringMap, "data": .stringMap, "notification": .freeObject, "fcm_options": webpushFCMOptions,
        ])
    static let apnsFCMOptions = Declared.message("google.firebase.fcm.v1.ApnsFcmOptions", ["analytics_label": .string, "image": .string])
    static let apns = Declared.message(
        "google.firebase.fcm.v1.ApnsConfig",
        [
            "headers": .stringMap, "payload": .freeObject, "fcm_options": apnsFCMOptions, "live_activity_token": .string,
        ])
    static let message = Declared.message(
        "google.firebase.fcm.v1.Message",
        [
            "name": .string, "data": .stringMap, "notification": notification, "android": android, "android_v2": androidV2,
            "webpush": webpush, "apns": apns, "fcm_options": fcmOptions,
            "token": .string, "topic": .string, "condition": .string, "fid": .string,
        ])
    static let request = Declared.message("google.firebase.fcm.v1.SendMessageRequest", ["message": message, "validate_only": .bool])
}

extension FCMSchema.Tables {
    /// The field of `own` spelled exactly `key` (snake_case or lowerCamelCase), if any: the type's
    /// key table is searched by the length and the first eight bytes, and the rest is compared only
    /// for a name longer than eight.
    @inline(__always)
    func field(named key: ByteView, in own: FCMSchema.MessageType) -> Int? {
        let head = key.headWord
        let count = key.count
        let mask = Int(own.keyMask)
        var slot = FCMSchema.keyHash(head: head, count: count) & mask
        while true {
            let entry = keys[Int(own.keySlots) + slot]
            guard entry.field >= 0 else { return nil }
            if entry.head == head, Int(entry.spelling.count) == count, count <= 8 || same(key, entry.spelling) { return Int(entry.field) }
            slot = (slot + 1) & mask
        }
    }

    /// Whether `bytes` are the name bytes at `span`.
    @inline(__always)
    func same(_ bytes: ByteView, _ span: FCMSchema.Span) -> Bool {
        guard bytes.count == Int(span.count) else { return false }
        let start = Int(span.start)
        for offset in 0..<bytes.count where bytes[offset] != names[start + offset] {
            return false
        }
        return true
    }
}
