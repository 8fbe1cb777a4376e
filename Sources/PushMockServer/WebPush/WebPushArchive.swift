import Crypto
import Foundation
import PushMockCore
import PushMockStore

/// Minted Web Push subscriptions in a store that keeps state: one key per subscription
/// (`web-push:<id>`) holding it whole, its private key and auth secret included (the store is the
/// test environment's own, and the keys only open pushes sent to PushMock), so that a restart or
/// another instance of a fleet opens what is sent to it. An empty value deletes it.
enum WebPushArchive {
    /// A subscription as the store keeps it.
    struct Record: Codable {
        var service: String
        var privateKey: String
        var auth: String
        var applicationServerKey: String?
        var state: String
        var createdAt: Int64
    }

    /// A registry that saves every change in `archive` (if any).
    static func subscriptions(archive: (any StateArchive)?) -> WebPushSubscriptions {
        guard let archive else { return WebPushSubscriptions() }
        return WebPushSubscriptions { id, subscription in
            archive.archive(StateKey.webPush(id: id).key, subscription.map(encode) ?? [])
        }
    }

    static func encode(_ subscription: WebPushSubscription) -> [UInt8] {
        let record = Record(
            service: subscription.service.rawValue, privateKey: Base64URL.encode(subscription.keys.privateKey.rawRepresentation),
            auth: subscription.keys.auth, applicationServerKey: subscription.applicationServerKey.map { Base64URL.encode($0) },
            state: subscription.state.rawValue, createdAt: subscription.createdAt)
        return (try? Array(JSONEncoder().encode(record))) ?? []
    }

    static func decode(id: String, _ bytes: [UInt8]) -> WebPushSubscription? {
        guard let record = try? JSONDecoder().decode(Record.self, from: Data(bytes)),
            let service = WebPushSubscription.Service(rawValue: record.service), let state = WebPushSubscription.State(rawValue: record.state),
            let raw = Base64URL.decode(Substring(record.privateKey)), let privateKey = try? P256.KeyAgreement.PrivateKey(rawRepresentation: raw),
            let auth = Base64URL.decode(Substring(record.auth))
        else { return nil }
        return WebPushSubscription(
            id: id, service: service, keys: WebPushKeys(privateKey: privateKey, authSecret: auth),
            applicationServerKey: record.applicationServerKey.flatMap { Base64URL.decode(Substring($0)) }, state: state, createdAt: record.createdAt)
    }

    /// Every subscription the store kept.
    static func restore(_ subscriptions: WebPushSubscriptions, from archive: any StateArchive) throws {
        for (key, bytes) in try archive.archived(prefix: StateKey.Prefix.webPush) {
            let id = String(key.dropFirst(StateKey.Prefix.webPush.count))
            subscriptions.apply(id: id, decode(id: id, bytes))
        }
    }

    /// One saved key from another instance of a fleet (empty: removed).
    static func apply(id: String, _ bytes: [UInt8], to subscriptions: WebPushSubscriptions) {
        subscriptions.apply(id: id, bytes.isEmpty ? nil : decode(id: id, bytes))
    }
}
