import Crypto
import PushMockBytes

/// An application server's VAPID credentials (RFC 8292) as a push service reads them: the
/// `Authorization: vapid t=<JWT>, k=<key>` form, or the older `Authorization: WebPush <JWT>` with
/// `Crypto-Key: p256ecdsa=<key>` (draft-ietf-webpush-vapid-01, still sent by some libraries).
///
/// ```swift
/// let credentials = try VAPIDCredentials.parse(authorization: headers["authorization"], cryptoKey: headers["crypto-key"])
/// if let broken = credentials.check(origin: "https://localhost:8443", now: now, refuseLocalhostSubject: true) { … }
/// ```
public struct VAPIDCredentials: Sendable, Hashable {
    /// Which header form carried them.
    public enum Form: String, Sendable, Hashable {
        case vapid
        case webPush
    }

    /// A rule the credentials break; each service answers it its own way.
    public enum Rule: String, Sendable, Hashable, Error, CaseIterable {
        case authorizationMissing
        case schemeUnknown
        case keyMissing
        case keyInvalid
        case tokenMalformed
        case signature
        case audience
        case expiryMissing
        case expired
        case expiryTooFar
        case subjectMissing
        case subjectNotURL
        case subjectLocalhost

        /// What the rule says, for a rejection's diagnostics.
        public var explanation: String {
            switch self {
            case .authorizationMissing: "no Authorization header: VAPID sends `Authorization: vapid t=<JWT>, k=<public key>` (RFC 8292 section 3)"
            case .schemeUnknown: "the Authorization scheme is neither `vapid` (RFC 8292) nor `WebPush` (its draft)"
            case .keyMissing: "no public key: `k=` in the vapid scheme, or `p256ecdsa=` in Crypto-Key with the WebPush scheme"
            case .keyInvalid: "the public key is not a base64url uncompressed P-256 point (65 bytes, 0x04 first)"
            case .tokenMalformed: "the token is not a JWT: three base64url parts, a header with alg ES256 and a JSON object of claims"
            case .signature: "the JWT's ES256 signature (64 bytes r||s) does not verify with the public key given beside it"
            case .audience: "aud is not the push endpoint's origin (scheme, host and port, no path)"
            case .expiryMissing: "the JWT has no exp claim (a number of seconds)"
            case .expired: "exp is in the past"
            case .expiryTooFar: "exp is more than 24 hours ahead (RFC 8292 section 2)"
            case .subjectMissing: "the JWT has no sub claim: a mailto: or https: URL to contact the sender"
            case .subjectNotURL: "sub is not a mailto: or https: URL"
            case .subjectLocalhost: "sub is a mailto: address at localhost, which Apple's push service refuses (BadJwtToken)"
            }
        }
    }

    /// The claims a push service reads.
    public struct Claims: Sendable, Hashable {
        public var audience: String?
        public var expiry: Int64?
        public var subject: String?
    }

    public var form: Form
    /// The application server's public key (65 bytes).
    public var key: [UInt8]
    public var claims: Claims
    /// `b64url(header).b64url(claims)`, the signed bytes.
    var signingInput: Substring
    var signature: [UInt8]

    /// Reads the credentials from the request's `Authorization` and `Crypto-Key` values; throws
    /// the first rule the headers themselves break (the claims are judged by ``check(origin:now:refuseLocalhostSubject:)``).
    public static func parse(authorization: String?, cryptoKey: String?) throws(Rule) -> VAPIDCredentials {
        guard let authorization = authorization?.trimmed, !authorization.isEmpty else { throw .authorizationMissing }
        let scheme = authorization.prefix { $0 != " " }.lowercased()
        let rest = authorization.dropFirst(scheme.count).trimmed
        let form: Form
        let token: Substring
        let keyText: Substring?
        switch scheme {
        case "vapid":
            form = .vapid
            let parameters = Self.parameters(rest, separators: [","])
            token = parameters["t"] ?? ""
            keyText = parameters["k"]
        case "webpush":
            form = .webPush
            token = rest
            keyText = cryptoKey.flatMap { Self.parameters(Substring($0), separators: [";", ","])["p256ecdsa"] }
        default:
            throw .schemeUnknown
        }
        guard let keyText, !keyText.isEmpty else { throw .keyMissing }
        guard let key = Base64URL.decode(keyText), key.count == 65, key.first == 4 else { throw .keyInvalid }
        guard (try? P256.Signing.PublicKey(x963Representation: key)) != nil else { throw .keyInvalid }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let header = Base64URL.decode(parts[0]), let claimBytes = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2])
        else { throw .tokenMalformed }
        let algorithm = header.withByteView { bytes -> String? in
            let scanner = JSONScanner(bytes)
            guard let root = scanner.root, root.kind == .object else { return nil }
            return scanner.member("alg", in: root).flatMap(scanner.string(at:))
        }
        guard algorithm == "ES256" else { throw .tokenMalformed }
        let claims = try claimBytes.withByteView { bytes throws(Rule) -> Claims in
            let scanner = JSONScanner(bytes)
            guard let root = scanner.root, root.kind == .object else { throw .tokenMalformed }
            return Claims(
                audience: scanner.member("aud", in: root).flatMap(scanner.string(at:)),
                expiry: scanner.member("exp", in: root).flatMap(scanner.int64(at:)),
                subject: scanner.member("sub", in: root).flatMap(scanner.string(at:)))
        }
        return VAPIDCredentials(
            form: form, key: key, claims: claims, signingInput: token[token.startIndex..<parts[2].startIndex].dropLast(), signature: signature)
    }

    /// The first rule the credentials break for a push to an endpoint of `origin` at `now`
    /// (seconds), or nil: the signature, then `aud`, `exp` and `sub`. `refuseLocalhostSubject`
    /// adds Apple's rule against a `mailto:` address at localhost.
    public func check(origin: String, now: Int64, refuseLocalhostSubject: Bool) -> Rule? {
        guard let publicKey = try? P256.Signing.PublicKey(x963Representation: key) else { return .keyInvalid }
        guard signature.count == 64, let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature),
            publicKey.isValidSignature(ecdsa, for: Array(signingInput.utf8))
        else { return .signature }
        guard let audience = claims.audience, audience.lowercased() == origin.lowercased() else { return .audience }
        guard let expiry = claims.expiry else { return .expiryMissing }
        if expiry <= now { return .expired }
        if expiry > now + 24 * 3600 { return .expiryTooFar }
        guard let subject = claims.subject, !subject.isEmpty else { return .subjectMissing }
        let lowered = subject.lowercased()
        guard lowered.hasPrefix("mailto:") || lowered.hasPrefix("https:") else { return .subjectNotURL }
        if refuseLocalhostSubject, lowered.hasPrefix("mailto:"), lowered.hasSuffix("@localhost") { return .subjectLocalhost }
        return nil
    }

    /// `name=value` pairs split at `separators` (spaces around each ignored).
    static func parameters(_ text: Substring, separators: Set<Character>) -> [String: Substring] {
        var result: [String: Substring] = [:]
        for part in text.split(whereSeparator: { separators.contains($0) }) {
            let pair = part.trimmed
            guard let equals = pair.firstIndex(of: "=") else { continue }
            result[pair[..<equals].trimmed.lowercased()] = pair[pair.index(after: equals)...].trimmed
        }
        return result
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    fileprivate var trimmed: Substring {
        let text = self[...]
        let start = text.firstIndex { $0 != " " && $0 != "\t" } ?? text.endIndex
        let end = text.lastIndex { $0 != " " && $0 != "\t" }.map { text.index(after: $0) } ?? start
        return Substring(text[start..<end])
    }
}
