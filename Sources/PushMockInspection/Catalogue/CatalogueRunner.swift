import Crypto
import Foundation
import PushMockCore
import PushMockStore
import _CryptoExtras

/// Sends catalogue entries and recorded deliveries through the push port, and finds what was
/// recorded: each request carries an `x-pushmock-catalogue` header with a fresh nonce.
struct CatalogueRunner: Sendable {
    let sender: any PushSender
    let credentials: CatalogueCredentials
    let store: any DeliveryStore
    let devices: any DeviceDirectory
    let faults: any FaultDirectory
    let now: @Sendable () -> Int64
    /// Where `webpush` entries mint their subscriptions.
    var webPush: WebPushSubscriptions?

    static let markerHeader = "x-pushmock-catalogue"

    /// Sends `entry` and reports whether the recorded answer is the entry's.
    func run(_ entry: RejectionEntry) async throws -> SendResult {
        if entry.service == "webpush" { return try await runWebPush(entry) }
        let nonce = Self.hex(8)
        let device = Self.hex(32)
        let fcmToken = Self.sampleRegistrationToken(nonce: nonce)
        let now = now()
        let usesAPNS = entry.service != "fcm"
        let apns = credentials.apns
        if usesAPNS, apns == nil {
            throw InspectionError(
                409,
                "this server holds no APNs private key to sign provider tokens with; configure --apns-key with a .p8 private key (the sample in Certs/ is one)"
            )
        }
        if !usesAPNS, credentials.fcm == nil {
            throw InspectionError(
                409,
                "this server holds no FCM service account with a private_key to obtain an access token with; configure --fcm-service-account with a key file (the sample in Certs/ is one)"
            )
        }
        let project = credentials.project
        let token = usesAPNS ? device : fcmToken
        var values: [String: String] = [
            "device": device, "fcmToken": fcmToken, "project": project, "topic": apns?.topic ?? "com.example.app",
            "now": "\(now)", "nowMs": "\(now * 1000)", "stale": "\(now - 7200)", "future": "\(now + 7200)",
            "big": String(repeating: "x", count: 5000),
        ]
        values["nonce"] = nonce
        func fill(_ text: String) -> String {
            var result = text
            for (name, value) in values where result.contains("{\(name)}") {
                result = result.replacing("{\(name)}", with: value)
            }
            return result
        }

        var faultID: String?
        if entry.viaFault {
            let id = "catalogue-\(nonce)"
            guard let status = FaultRule.status(of: entry.reason) else {
                throw InspectionError(500, "catalogue entry \(entry.id): \(entry.reason) is neither an APNs reason nor an FCM error code")
            }
            let match = FaultRule.Match(service: usesAPNS ? .apns : .fcm, token: token)
            _ = try faults.addFault(FaultRule(id: id, match: match, action: .reject(status: status, reason: entry.reason), count: 1))
            faultID = id
        }
        if let setup = entry.device {
            devices.setDevice(token, setup.record(project: project, nowMilliseconds: now * 1000))
        }
        defer {
            if let faultID { _ = faults.removeFault(id: faultID) }
            if entry.device != nil { _ = devices.removeDevice(token) }
        }

        var bearer: String?
        if entry.steps.contains(where: { $0.auth == .fcm }) {
            bearer = try await accessToken(now: now)
        }
        var requests: [OutgoingRequest] = []
        for step in entry.steps {
            var headers = step.headers.map { HeaderField(name: $0.name, value: fill($0.value)) }
            switch step.auth {
            case .apns(let age):
                headers.append(HeaderField(name: "authorization", value: "bearer " + (try Self.providerToken(apns!, issuedAt: now - age))))
            case .apnsTampered:
                // One character in the middle of the signature changed (the last one may carry only
                // padding bits, which a decoder ignores).
                var jwt = Array(try Self.providerToken(apns!, issuedAt: now))
                let index = jwt.count - 40
                jwt[index] = jwt[index] == "A" ? "B" : "A"
                headers.append(HeaderField(name: "authorization", value: "bearer " + String(jwt)))
            case .fcm:
                headers.append(HeaderField(name: "authorization", value: "Bearer " + (bearer ?? "")))
            case .literal(let value):
                headers.append(HeaderField(name: "authorization", value: value))
            case .none, .vapid:
                break
            }
            headers.append(HeaderField(name: Self.markerHeader, value: nonce))
            requests.append(OutgoingRequest(method: step.method, path: fill(step.path), headers: headers, body: Array(fill(step.body).utf8)))
        }
        var result = try await send(requests, nonce: nonce)
        result.entry = entry.id
        result.produced = result.reason == entry.reason
        result.fault = faultID
        return result
    }

    /// Sends the request `delivery` recorded again, as it was received (pseudo-headers and
    /// connection headers aside).
    func resend(_ delivery: Delivery) async throws -> SendResult {
        let nonce = Self.hex(8)
        let skipped: Set<String> = ["content-length", "host", "connection", "transfer-encoding", "te", "keep-alive", "upgrade", Self.markerHeader]
        var headers = delivery.headers.filter { !$0.name.hasPrefix(":") && !skipped.contains($0.name.lowercased()) }
        headers.append(HeaderField(name: Self.markerHeader, value: nonce))
        var result = try await send(
            [OutgoingRequest(method: delivery.method, path: delivery.path, headers: headers, body: delivery.body)], nonce: nonce)
        result.produced = true
        return result
    }

    /// Sends `push` as `pushmock send` would: signed with the server's APNs key, with an access
    /// token for its service account from its own token endpoint, or sealed and VAPID signed to a
    /// Web Push subscription.
    func send(_ push: TestPush) async throws -> SendResult {
        let nonce = Self.hex(8)
        let now = now()
        let bearer = push.service == .fcm && !push.headers.contains { $0.name == "authorization" } ? try await accessToken(now: now) : nil
        var request = try push.request(
            credentials: credentials, now: now, bearer: bearer, send: true, webPush: webPush, authority: sender.authority)
        request.headers.append(HeaderField(name: Self.markerHeader, value: nonce))
        var result = try await send([request], nonce: nonce)
        result.produced = true
        return result
    }

    func send(_ requests: [OutgoingRequest], nonce: String) async throws -> SendResult {
        let before = try await store.newestID()
        let responses: [SentResponse]
        do {
            responses = try await sender.send(requests)
        } catch let error as InspectionError {
            throw error
        } catch {
            throw InspectionError(502, "sending through the push port failed: \(error)")
        }
        let last = responses.last ?? SentResponse(status: 0, body: Array("no request was sent".utf8))
        let recorded = try await store.deliveries(after: before, matching: DeliveryFilter(), limit: 100_000)
            .last { $0.headers.contains { $0.name == Self.markerHeader && $0.value == nonce } }
        return SendResult(
            entry: nil, produced: false, status: last.status, body: String(decoding: last.body, as: UTF8.self),
            deliveryId: recorded?.id, outcome: recorded?.outcome, reason: recorded?.reason, explanation: recorded?.explanation, fault: nil
        )
    }

    static func providerToken(_ apns: CatalogueCredentials.APNS, issuedAt: Int64) throws(InspectionError) -> String {
        do {
            return try ProviderToken.sign(
                keyID: apns.keyID, teamID: apns.teamID, issuedAt: issuedAt, key: try P256.Signing.PrivateKey(pemRepresentation: apns.pem))
        } catch {
            throw InspectionError(409, "the APNs key \(apns.keyID) cannot sign: \(error)")
        }
    }

    /// A registration token of FCM's shape (`<prefix>:APA91b…`, 140 characters in all).
    static func sampleRegistrationToken(nonce: String = hex(8)) -> String {
        "pm\(nonce):APA91b" + String((0..<120).map { _ in alphabet.randomElement()! })
    }

    /// An access token from PushMock's own token endpoint, through the push port.
    func accessToken(now: Int64) async throws -> String {
        guard let fcm = credentials.fcm, let account = try? ServiceAccount.parse(json: Array(fcm.json.utf8)),
            case .string(let pem)? = JSONValue.parse(Array(fcm.json.utf8))?["private_key"],
            let key = try? _RSA.Signing.PrivateKey(pemRepresentation: pem)
        else {
            throw InspectionError(409, "the FCM service account holds no usable private_key")
        }
        let assertion = try OAuthAssertion.sign(
            key: key, keyID: account.privateKeyID, issuer: account.clientEmail, audience: "https://oauth2.googleapis.com/token",
            scope: "https://www.googleapis.com/auth/firebase.messaging", issuedAt: now
        )
        let form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)"
        let answer = try await sender.send([
            OutgoingRequest(
                method: "POST", path: fcm.tokenPath, headers: [HeaderField(name: "content-type", value: "application/x-www-form-urlencoded")],
                body: Array(form.utf8))
        ])
        guard let body = answer.first?.body, case .string(let token)? = JSONValue.parse(body)?["access_token"] else {
            // A fault on the token endpoint (or on everything) can refuse or hold it: the server's
            // state prevents the send, which is a conflict, not a failure of PushMock.
            throw InspectionError(
                409,
                "PushMock's token endpoint gave no access token, so the message was not sent (a fault may be holding it): \(String(decoding: answer.first?.body ?? [], as: UTF8.self))"
            )
        }
        return token
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")

    static func hex(_ bytes: Int) -> String {
        (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }
}

extension CatalogueCredentials {
    /// The FCM project sends go to: the service account's, else PushMock's sample project.
    var project: String {
        fcm.flatMap { try? ServiceAccount.parse(json: Array($0.json.utf8)).projectID } ?? "pushmock-demo"
    }
}
