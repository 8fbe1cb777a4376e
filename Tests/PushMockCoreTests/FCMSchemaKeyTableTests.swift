import PushMockBytes
import Testing

@testable import PushMockCore

@Suite("The FCM schema's key table")
struct FCMSchemaKeyTableTests {
    /// What a scan of the type's fields finds for `key`: the first field spelled so.
    static func scanned(_ key: [UInt8], in type: FCMSchema.MessageType, _ tables: FCMSchema.Tables) -> Int? {
        for index in Int(type.first)..<Int(type.first + type.count) {
            let field = tables.fields[index]
            for spelling in [field.snake, field.camel] {
                let bytes = Array(tables.names.view(Int(spelling.start)..<Int(spelling.start + spelling.count)))
                if bytes == key { return index }
            }
        }
        return nil
    }

    static func looked(_ key: [UInt8], in type: FCMSchema.MessageType, _ tables: FCMSchema.Tables) -> Int? {
        key.withByteView { tables.keys.field($0, in: type, names: tables.names) }
    }

    @Test("every spelling of every field is found under its own type, and near misses and other types' names as the scan finds them")
    func agreesWithScan() {
        let tables = FCMSchema.shared.tables
        var spellings: Set<[UInt8]> = []
        for index in tables.fields.indices {
            for spelling in [tables.fields[index].snake, tables.fields[index].camel] {
                spellings.insert(Array(tables.names.view(Int(spelling.start)..<Int(spelling.start + spelling.count))))
            }
        }
        var found = 0
        for type in tables.types {
            for spelling in spellings {
                // Each name, and a name one byte off in its middle, one byte longer and one shorter.
                var changed = spelling
                changed[changed.count / 2] ^= 0x01
                for key in [spelling, changed, spelling + [UInt8(ascii: "s")], Array(spelling.dropLast())] where !key.isEmpty {
                    let expected = Self.scanned(key, in: type, tables)
                    #expect(Self.looked(key, in: type, tables) == expected, "\(String(decoding: key, as: UTF8.self)) in type \(type.first)")
                    if expected != nil { found += 1 }
                }
            }
        }
        // Every field was found under its type by at least its snake_case name.
        #expect(found >= tables.fields.count, "found \(found) of \(tables.fields.count) fields")
    }
}
