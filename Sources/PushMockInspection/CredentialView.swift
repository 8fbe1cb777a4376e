import PushMockCore

/// How a recorded `authorization` header is shown (issue 10, defect 7): the JWT header and claims,
/// decoded, with the signature elided, so a leaked page, log or screenshot never carries a
/// working provider token. An opaque token (an OAuth access token) keeps its first 8 characters.
/// `?reveal=1` shows the header as received (with the inspection token when one is configured).
enum CredentialView {
    /// What replaces an elided signature or token.
    static let elided = "…(elided; ?reveal=1 shows it)"

    /// The header value to show.
    static func value(_ header: String) -> String {
        let (scheme, credential) = split(header)
        if let (token, key) = vapid(scheme, credential), let jwt = jwtParts(token) {
            return scheme + "t=" + jwt.header + "." + jwt.claims + "." + elided + (key.map { ", k=" + $0 } ?? "")
        }
        if let jwt = jwtParts(credential) {
            return scheme + jwt.header + "." + jwt.claims + "." + elided
        }
        return scheme + String(credential.prefix(8)) + elided
    }

    /// `{"scheme","header","claims","signature":"elided"}` for a JWT credential; nil otherwise.
    static func decoded(_ header: String) -> DeliveryResource.AuthorizationView? {
        let (scheme, whole) = split(header)
        let credential = vapid(scheme, whole)?.token ?? whole
        guard let jwt = jwtParts(credential),
            let headerBytes = Base64URL.decode(Substring(jwt.header)), let claimsBytes = Base64URL.decode(Substring(jwt.claims)),
            let headerJSON = JSONValue.parse(headerBytes), let claimsJSON = JSONValue.parse(claimsBytes)
        else { return nil }
        return DeliveryResource.AuthorizationView(scheme: scheme.trimmingTrailingSpaces, header: headerJSON, claims: claimsJSON, signature: "elided")
    }

    private static func split(_ header: String) -> (scheme: String, credential: Substring) {
        guard let space = header.firstIndex(of: " ") else { return ("", Substring(header)) }
        var rest = header[space...]
        while rest.first == " " { rest = rest.dropFirst() }
        return (String(header[..<rest.startIndex]), rest)
    }

    /// Web Push's `vapid t=<JWT>, k=<public key>` (RFC 8292): the token, and the key (not a secret).
    private static func vapid(_ scheme: String, _ credential: Substring) -> (token: Substring, key: String?)? {
        guard scheme.trimmingTrailingSpaces.lowercased() == "vapid" else { return nil }
        var token: Substring?
        var key: String?
        for part in credential.split(separator: ",") {
            let pair = part.drop { $0 == " " }
            if pair.hasPrefix("t=") { token = pair.dropFirst(2) } else if pair.hasPrefix("k=") { key = String(pair.dropFirst(2)) }
        }
        return token.map { ($0, key) }
    }

    private static func jwtParts(_ credential: Substring) -> (header: String, claims: String)? {
        let parts = credential.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        return (String(parts[0]), String(parts[1]))
    }
}

extension String {
    fileprivate var trimmingTrailingSpaces: String {
        var slice = Substring(self)
        while slice.last == " " { slice = slice.dropLast() }
        return String(slice)
    }
}
