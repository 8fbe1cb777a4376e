import Foundation
import PushMockCore
import PushMockStore

/// Activity types declared through the API, in a store that keeps state: one snapshot per type
/// (`activity-type:<Name>` → the declaration's JSON as it was sent), so that they last across
/// restarts (SQLite) and are the whole fleet's (PostgreSQL). ``removed`` marks a type removed
/// through the API; an empty snapshot means "as the configuration says" (after a reset): the
/// configured declaration, or no type of that name.
enum ActivityTypeArchive {
    static let keyPrefix = StateKey.Prefix.activityType
    /// The snapshot of a type removed through the API.
    static let removed = Array(#"{"removed":true}"#.utf8)

    /// Saves `name` as declared by `declaration`, in the declaration format.
    static func save(_ name: String, _ declaration: ActivityTypeDeclaration, in archive: (any StateArchive)?) {
        save(name, body: (try? JSONEncoder().encode(declaration.source)).map(Array.init), in: archive)
    }

    /// Saves `name` as declared by `body` (nil: removed, or back to the configuration).
    static func save(_ name: String, body: [UInt8]?, in archive: (any StateArchive)?) {
        archive?.archive(StateKey.activityType(name: name).key, body ?? [])
    }

    /// After a reset: every type the API declared or removed goes back to the configuration's.
    static func reset(_ types: ActivityTypeRegistry, configured: [String: ActivityTypeDeclaration], in archive: (any StateArchive)?) {
        guard let archive else { return }
        let names = Set(types.all.keys).union(configured.keys).union(
            (try? archive.archived(prefix: keyPrefix).keys.map { String($0.dropFirst(keyPrefix.count)) }) ?? [])
        for name in names.sorted() { save(name, body: nil, in: archive) }
    }

    /// Every type the store kept, over the configuration's.
    static func restore(_ types: ActivityTypeRegistry, configured: [String: ActivityTypeDeclaration], from archive: any StateArchive) throws {
        for (key, bytes) in try archive.archived(prefix: keyPrefix) {
            guard case .activityType(let name) = StateKey(key) else { continue }
            try apply(name: name, bytes, to: types, configured: configured)
        }
    }

    /// One type's snapshot, in place of its declaration now.
    static func apply(name: String, _ bytes: [UInt8], to types: ActivityTypeRegistry, configured: [String: ActivityTypeDeclaration]) throws {
        guard !bytes.isEmpty else {
            if let declaration = configured[name] { types.declare(name, .declared(declaration)) } else { types.remove(name) }
            return
        }
        guard let json = JSONValue.parse(bytes) else { throw StoreError("the kept activity type \(name) is not JSON") }
        if json["removed"] == .bool(true) {
            types.remove(name)
            return
        }
        let key = StateKey.activityType(name: name).key
        do {
            types.declare(name, .declared(try ActivityTypeDeclaration(name: name, config: json, file: "store", path: key)))
        } catch {
            throw StoreError(error.description)
        }
    }
}
