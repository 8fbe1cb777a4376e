import PushMockBytes
import Testing

@testable import PushMockCore

/// Each message type's key table finds every field by both spellings, and nothing else: keys that
/// share a field's length and first eight bytes, or differ from it in one byte, are not the field.
@Suite("FCM schema: the key tables")
struct FCMSchemaKeyTableTests {
    let schema = FCMSchema.shared

    func lookup(_ key: String, in type: Int) -> Int? {
        Array(key.utf8).withByteView { schema.tables.field(named: $0, in: schema.tables.types[type]) }
    }

    @Test("every field of every type is found by its snake_case and lowerCamelCase names")
    func everySpelling() {
        var checked = 0
        for type in schema.tables.types.indices {
            let own = schema.tables.types[type]
            for field in Int(own.first)..<Int(own.first + own.count) {
                let snake = schema.fieldNames[field]
                #expect(lookup(snake, in: type) == field, "\(schema.typeNames[type]).\(snake)")
                #expect(lookup(FCMSchema.camel(snake), in: type) == field, "\(schema.typeNames[type]).\(FCMSchema.camel(snake))")
                checked += 1
            }
        }
        #expect(checked == schema.fieldNames.count)
    }

    @Test("a key that is not a field's name is not found, however close")
    func nearMisses() {
        for type in schema.tables.types.indices {
            let own = schema.tables.types[type]
            for field in Int(own.first)..<Int(own.first + own.count) {
                let name = schema.fieldNames[field]
                let lastChanged = String(name.dropLast()) + (name.last == "x" ? "y" : "x")
                for miss in [name + "s", String(name.dropLast()), lastChanged, name.uppercased(), ""] {
                    let found = lookup(miss, in: type)
                    // A near miss may still name another field of the type (`ttl` + `s`? none today).
                    #expect(found == nil || schema.fieldNames[found!] == miss || FCMSchema.camel(schema.fieldNames[found!]) == miss, "\(miss)")
                }
            }
        }
        let message = Int(schema.tables.fields[0].argument)
        #expect(lookup("notification", in: message) != nil)
        #expect(lookup("notificatioN", in: message) == nil)
        #expect(lookup("notifications", in: message) == nil)
        #expect(lookup("fcm_options", in: message) == lookup("fcmOptions", in: message))
    }
}
