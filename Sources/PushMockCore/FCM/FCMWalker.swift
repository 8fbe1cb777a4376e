import PushMockBytes

/// One validation pass over a request body's tape, on one thread. A connection's
/// ``FCMMessageValidator/Scratch`` keeps its walker for the next body (``start(tape:validator:now:)``).
/// No access to its fields overlaps another, so they skip the runtime's exclusivity checks.
///
/// The structural walk resolves every member to a field of the compiled ``FCMSchema`` and keeps,
/// per field, the tape index of its value (``slots``): the rules that follow read fields from there
/// instead of scanning objects by name. Paths for error texts (`message.android.ttl`) are worked
/// out from the tape only when there is an error to report.
final class FCMWalker {
    @exclusivity(unchecked) var tape: JSONTape
    @exclusivity(unchecked) var validator: FCMMessageValidator
    let tables: FCMSchema.Tables
    /// The schema fields the rules read (``FCMField/indices``).
    let fields = FCMField.indices
    /// Per schema field, the tape index of its value in this request, or -1. A message object being
    /// walked clears its subtree's slots first, so every slot under a message field belongs to that
    /// field's last object.
    let slots: ScratchInts
    @exclusivity(unchecked) var result = FCMSendResult()
    @exclusivity(unchecked) var now = PushInstant.epoch
    /// The tape index of `apns.payload`.
    @exclusivity(unchecked) var apnsPayload: Int?
    /// The duration ``checkDuration(_:)`` read last, and where: the TTL's check reads it again.
    @exclusivity(unchecked) var lastDuration: (value: Int, seconds: Double?) = (-1, nil)
    /// The last registration token a message on this connection was sent to that passed its
    /// check, and under which rule (the walker is kept for the connection's next message): a
    /// message to the same token takes its string and its check from here (about 1 400
    /// instructions a message). A valid token has no backslash, so it is compared as written.
    @exclusivity(unchecked) var lastValidToken: String?
    @exclusivity(unchecked) var lastValidTokenStrict = false

    /// `slots` has room for every schema field (``FCMMessageValidator/Scratch``).
    init(tape: JSONTape, validator: FCMMessageValidator, slots: ScratchInts) {
        self.tape = tape
        self.validator = validator
        self.tables = FCMSchema.shared.tables
        self.slots = slots
        slots.fill(-1)
    }

    /// Readies a kept walker for the next body, as a new one would start. Its `result` is already
    /// empty: ``request()`` moves it out, and a refusal empties it
    /// (``FCMMessageValidator/validate(_:now:scratch:)``).
    func start(tape: consuming JSONTape, validator: FCMMessageValidator, now: PushInstant) {
        self.tape = tape
        self.validator = validator
        self.now = now
        apnsPayload = nil
        lastDuration = (-1, nil)
        slots.fill(-1)
    }

    /// The value of `field` in this request (its last member; see
    /// ``FCMSchema/MessageType/nullKeepsEarlier`` for `null`), or nil.
    @inline(__always)
    func value(_ field: Int) -> Int? {
        let index = slots[field]
        return index >= 0 ? index : nil
    }

    // MARK: Structure

    /// Walks `object` as a message of `type`: every member resolved to a field (unknown names
    /// refused), its slot set, and its value checked, in document order; `deferred` (the request's
    /// `message`) is only noted.
    func walk(_ object: Int, type: Int32, deferring deferred: Int = -1) throws(GoogleError) {
        guard tape.kind(object) == .object else {
            throw typeError(at: object, type: "type.googleapis.com/\(FCMSchema.shared.typeNames[Int(type)])")
        }
        let own = tables.types[Int(type)]
        clear(from: Int(own.first), to: Int(own.subtreeEnd))
        var child = object + 1
        let end = tape.entries[object].end
        while child < end {
            let value = child + 1
            guard let field = fieldIndex(forKey: child, in: own) else {
                let key = tape.keyText(child)
                let path = path(to: object)
                let message =
                    path.isEmpty
                    ? "Invalid JSON payload received. Unknown name \"\(key)\": Cannot find field."
                    : "Invalid JSON payload received. Unknown name \"\(key)\" at '\(path)': Cannot find field."
                throw GoogleError(
                    code: 400, message: message, status: "INVALID_ARGUMENT", details: [.badRequest([.init(field: path, description: message)])])
            }
            if tape.kind(value) == .null {
                if !own.nullKeepsEarlier {
                    slots[field] = -1
                    let spec = tables.fields[field]
                    if spec.kind == .message {
                        let cleared = tables.types[Int(spec.argument)]
                        clear(from: Int(cleared.first), to: Int(cleared.subtreeEnd))
                    }
                }
            } else {
                slots[field] = value
                if field != deferred { try check(value, field) }
            }
            child = tape.entries[value].end
        }
    }

    @inline(__always)
    func clear(from start: Int, to end: Int) {
        for index in start..<end { slots[index] = -1 }
    }

    /// Checks `value` against `field`'s type (structure only; messages are walked).
    func check(_ value: Int, _ field: Int) throws(GoogleError) {
        let spec = tables.fields[field]
        let kind = tape.kind(value)
        switch spec.kind {
        case .string:
            guard kind == .string else { throw typeError(at: value, type: "TYPE_STRING") }
        case .bool:
            guard kind == .bool else { throw typeError(at: value, type: "TYPE_BOOL") }
        case .int32:
            let parsed = kind == .number ? tape.int64(value) : tape.string(value).flatMap { Int64($0) }
            guard let number = parsed, number >= Int64(Int32.min), number <= Int64(Int32.max) else {
                throw typeError(at: value, type: "TYPE_INT32")
            }
        case .float:
            guard kind == .number else { throw typeError(at: value, type: "TYPE_FLOAT") }
        case .duration:
            try checkDuration(value)
        case .timestamp:
            guard kind == .string, withStringBytes(value, FCMWalker.isRFC3339) else {
                throw typeError(at: value, type: "type.googleapis.com/google.protobuf.Timestamp")
            }
        case .enumeration:
            guard kind == .string, withStringBytes(value, { isSpelling($0, ofEnum: Int(spec.argument)) }) else {
                throw typeError(at: value, type: "TYPE_ENUM")
            }
        case .stringMap:
            guard kind == .object else { throw typeError(at: value, type: "type.googleapis.com/google.protobuf.Struct") }
            var child = value + 1
            var position = 0
            while child < tape.entries[value].end {
                let entry = child + 1
                if tape.kind(entry) != .string {
                    throw typeError(path: "\(path(to: value))[\(position)].value", type: "TYPE_STRING", value: entry)
                }
                position += 1
                child = tape.entries[entry].end
            }
        case .message:
            try walk(value, type: spec.argument)
        case .repeatedString, .repeatedDuration:
            guard kind == .array else { throw typeError(at: value, type: "TYPE_STRING") }
            var element = value + 1
            while element < tape.entries[value].end {
                if spec.kind == .repeatedDuration {
                    try checkDuration(element)
                } else if tape.kind(element) != .string {
                    throw typeError(at: element, type: "TYPE_STRING")
                }
                element = tape.entries[element].end
            }
        case .freeObject:
            guard kind == .object else { throw typeError(at: value, type: "type.googleapis.com/google.protobuf.Struct") }
        }
    }

    func checkDuration(_ value: Int) throws(GoogleError) {
        let seconds = tape.kind(value) == .string ? withStringBytes(value, FCMDuration.seconds) : nil
        lastDuration = (value, seconds)
        guard seconds != nil else {
            let path = path(to: value)
            let last = path.split(separator: ".").last.map(String.init) ?? path
            let message =
                "Invalid value at '\(path)' (type.googleapis.com/google.protobuf.Duration), Field '\(FCMSchema.camel(last))', Illegal duration format"
            throw GoogleError(
                code: 400, message: message, status: "INVALID_ARGUMENT", details: [.badRequest([.init(field: path, description: message)])])
        }
    }

    /// Whether `bytes` spell one of enum `index`'s values.
    func isSpelling(_ bytes: ByteView, ofEnum index: Int) -> Bool {
        let spellings = tables.enums[index]
        for spelling in tables.enumSpans[Int(spellings.start)..<Int(spellings.start + spellings.count)] where same(bytes, spelling) {
            return true
        }
        return false
    }

    @inline(__always)
    func same(_ bytes: ByteView, _ span: FCMSchema.Span) -> Bool {
        tables.same(bytes, span)
    }

    /// The field of `own` a JSON key stands for (snake_case or lowerCamelCase; escaped keys are
    /// decoded), if any.
    func fieldIndex(forKey key: Int, in own: FCMSchema.MessageType) -> Int? {
        let range = tape.entries[key].value.range
        let content = tape.scanner.bytes.view((range.lowerBound + 1)..<(range.upperBound - 1))
        if let field = tables.field(named: content, in: own) { return field }
        return fieldIndex(spelledOtherwise: key, content: content, in: own)
    }

    /// ``fieldIndex(forKey:in:)`` for a key not spelled as the schema spells a field: escaped
    /// (`"to\u006ben"`) or capitalised otherwise. A function of its own: inline, its Unicode
    /// properties cost every key a metadata lookup and a stack allocation (about 100 instructions).
    @inline(never)
    private func fieldIndex(spelledOtherwise key: Int, content: ByteView, in own: FCMSchema.MessageType) -> Int? {
        guard content.contains(where: { $0 == UInt8(ascii: "\\") || ($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z")) }) else { return nil }
        let names = FCMSchema.shared.fieldNames
        let fields = Int(own.first)..<Int(own.first + own.count)
        let text = tape.keyText(key)
        if let exact = fields.first(where: { names[$0] == text }) { return exact }
        guard text.utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else { return nil }
        var snake = ""
        for character in text.unicodeScalars {
            if character.properties.isUppercase {
                snake += "_" + String(character).lowercased()
            } else {
                snake.unicodeScalars.append(character)
            }
        }
        return fields.first { names[$0] == snake }
    }

    // MARK: Texts

    /// Calls `body` with the decoded bytes of the string entry at `index` (the body's own bytes
    /// when it has no escapes).
    func withStringBytes<Result>(_ index: Int, _ body: (ByteView) -> Result) -> Result {
        let range = tape.entries[index].value.range
        let content = tape.scanner.bytes.view((range.lowerBound + 1)..<(range.upperBound - 1))
        guard content.contains(byte: UInt8(ascii: "\\")) else { return body(content) }
        return (tape.string(index) ?? "").withUTF8View(body)
    }

    func typeError(at value: Int, type: String) -> GoogleError {
        typeError(path: path(to: value), type: type, value: value)
    }

    func typeError(path: String, type: String, value: Int) -> GoogleError {
        let message = "Invalid value at '\(path)' (\(type)), \(tape.text(value))"
        return GoogleError(
            code: 400, message: message, status: "INVALID_ARGUMENT", details: [.badRequest([.init(field: path, description: message)])])
    }

    /// The snake_case path of the value at `target` (`message.android.notification.body_loc_args[1]`),
    /// found by descending from the root through the schema: only for error texts.
    func path(to target: Int) -> String {
        var parts: [String] = []
        var node = tape.root
        var type: Int32 = FCMSchema.shared.request
        descent: while node != target {
            switch tape.kind(node) {
            case .object:
                var child = node + 1
                while child < tape.entries[node].end {
                    let value = child + 1
                    if target >= value, target < tape.entries[value].end {
                        guard type >= 0, let field = fieldIndex(forKey: child, in: tables.types[Int(type)]) else { break descent }
                        parts.append(FCMSchema.shared.fieldNames[field])
                        type = tables.fields[field].kind == .message ? tables.fields[field].argument : -1
                        node = value
                        continue descent
                    }
                    child = tape.entries[value].end
                }
                break descent
            case .array:
                var element = node + 1
                var position = 0
                while element < tape.entries[node].end {
                    if target >= element, target < tape.entries[element].end {
                        parts[parts.count - 1] += "[\(position)]"
                        node = element
                        continue descent
                    }
                    position += 1
                    element = tape.entries[element].end
                }
                break descent
            default:
                break descent
            }
        }
        return parts.joined(separator: ".")
    }
}

/// The schema fields the rules read, by their place in a request.
enum FCMField {
    static let schema = FCMSchema.shared
    /// The fields' indexes, read once per walk (``FCMWalker/fields``): every read of a static
    /// checks that it is made, a call each time (about 35 a message).
    static let indices = Indices()

    struct Indices: Sendable {
        let message = schema.field("message")
        let messageType = schema.tables.fields[schema.field("message")].argument
        let validateOnly = schema.field("validate_only")
        let token = schema.field("message.token")
        let topic = schema.field("message.topic")
        let condition = schema.field("message.condition")
        let fid = schema.field("message.fid")
        let data = schema.field("message.data")
        let notification = schema.field("message.notification")
        let android = schema.field("message.android")
        let webpush = schema.field("message.webpush")
        let apns = schema.field("message.apns")
        let analyticsLabel = schema.field("message.fcm_options.analytics_label")
        let androidV2 = schema.field("message.android_v2")
        let remoteNotification = schema.field("message.android_v2.remote_notification")
        let backgroundSync = schema.field("message.android_v2.background_sync")
        let webpushData = schema.field("message.webpush.data")
        let webpushLink = schema.field("message.webpush.fcm_options.link")
        let webpushAnalyticsLabel = schema.field("message.webpush.fcm_options.analytics_label")
        let apnsHeaders = schema.field("message.apns.headers")
        let apnsPayload = schema.field("message.apns.payload")
        let apnsAnalyticsLabel = schema.field("message.apns.fcm_options.analytics_label")
        let liveActivityToken = schema.field("message.apns.live_activity_token")
    }
    static let androidV1Config = AndroidFields(at: "message.android", notification: "notification")
    static let androidV2Config = AndroidFields(at: "message.android_v2", notification: "remote_notification.notification")

    /// What `android` and `android_v2` share, and the rules read: their fields' indexes and paths.
    struct AndroidFields: Sendable {
        let path: String
        let notificationPath: String
        let ttl: Int
        let data: Int
        let analyticsLabel: Int
        let notification: Int
        let color: Int
        /// `(args, key)` pairs: args need their key.
        let localizations: [(name: String, args: Int, keyName: String, key: Int)]
        let lightSettings: Int
        let lightSettingsRequired: [(name: String, field: Int)]

        init(at path: String, notification: String) {
            let notificationPath = "\(path).\(notification)"
            self.path = path
            self.notificationPath = notificationPath
            ttl = schema.field("\(path).ttl")
            data = schema.field("\(path).data")
            analyticsLabel = schema.field("\(path).fcm_options.analytics_label")
            self.notification = schema.field(notificationPath)
            color = schema.field("\(notificationPath).color")
            localizations = [("body_loc_args", "body_loc_key"), ("title_loc_args", "title_loc_key")].map {
                (name: $0.0, args: schema.field("\(notificationPath).\($0.0)"), keyName: $0.1, key: schema.field("\(notificationPath).\($0.1)"))
            }
            lightSettings = schema.field("\(notificationPath).light_settings")
            lightSettingsRequired = ["color", "light_on_duration", "light_off_duration"].map {
                (name: $0, field: schema.field("\(notificationPath).light_settings.\($0)"))
            }
        }
    }
}
