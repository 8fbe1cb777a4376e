import Foundation
import Logging
import PushMockBytes
import PushMockCore
import PushMockStore
import PushMockTransport
import Synchronization

/// Google's front end: who sent a request, and whether it may send for the project.
extension FCMEndpoint {
    /// Google's front end: a bearer access token PushMock issued, or a self-signed service-account JWT,
    /// for `project` (nil: any project, the grant's own).
    func authenticate(
        _ request: HTTPServerRequest, project: String?, context: RequestContext, now: PushInstant
    ) throws(GoogleError) -> AccessTokenStore.Grant {
        try authenticate(request, project: project, connection: ConnectionState.of(context), now: now)
    }

    /// The same, with the connection's state already looked up.
    func authenticate(
        _ request: HTTPServerRequest, project: String?, connection: ConnectionState, now: PushInstant
    ) throws(GoogleError) -> AccessTokenStore.Grant {
        guard let authorization = request.headers[known: .authorization], !authorization.isEmpty else {
            throw GoogleError(
                code: 401, message: Self.missingCredentials, status: "UNAUTHENTICATED",
                details: [.errorInfo(reason: "CREDENTIALS_MISSING", metadata: Self.metadata)])
        }
        let grant: AccessTokenStore.Grant
        if let cached = connection.fcmCredential, cached.authorization == authorization {
            grant = cached.grant
        } else {
            let bytes = authorization.utf8
            guard bytes.count > 7, zip(bytes.prefix(7), "bearer ".utf8).allSatisfy({ $0 | 0x20 == $1 }) else {
                throw GoogleError(
                    code: 401, message: Self.invalidCredentials, status: "UNAUTHENTICATED",
                    details: [.errorInfo(reason: "ACCESS_TOKEN_TYPE_UNSUPPORTED", metadata: Self.metadata)])
            }
            let token = String(Substring(bytes.dropFirst(7))).trimmingCharacters(in: .whitespaces)
            if let issued = tokens.grant(for: token) {
                grant = issued
            } else if let signed = selfSignedGrant(token, now: now) {
                grant = signed
            } else {
                throw GoogleError(
                    code: 401, message: Self.invalidCredentials, status: "UNAUTHENTICATED",
                    details: [.errorInfo(reason: "ACCESS_TOKEN_TYPE_UNSUPPORTED", metadata: Self.metadata)])
            }
            // Checked once per credential, before the connection caches the grant.
            guard OAuthTokenEndpoint.allowsSending(scope: grant.scope) else {
                throw GoogleError(
                    code: 403, message: "Request had insufficient authentication scopes.", status: "PERMISSION_DENIED",
                    details: [.errorInfo(reason: "ACCESS_TOKEN_SCOPE_INSUFFICIENT", metadata: Self.metadata)]
                )
            }
            connection.fcmCredential = CachedGrant(authorization: authorization, grant: grant)
        }
        guard grant.expiresAt > now.secondsSinceEpoch else {
            throw GoogleError(
                code: 401, message: Self.invalidCredentials, status: "UNAUTHENTICATED",
                details: [.errorInfo(reason: "ACCESS_TOKEN_EXPIRED", metadata: Self.metadata)])
        }
        if grant.isUser, project != nil {
            // A user's token bills no project of its own: Google wants the quota project named.
            guard let quotaProject = request.headers[known: .xGoogUserProject], !quotaProject.isEmpty else {
                let client = OAuthUserClient(
                    clientID: String(grant.clientEmail.dropFirst(AccessTokenStore.Grant.userPrefix.count)), clientSecret: nil)
                throw GoogleError(
                    code: 403, message: Self.quotaProjectRequired, status: "PERMISSION_DENIED",
                    details: [
                        .errorInfo(
                            reason: "SERVICE_DISABLED",
                            metadata: [("consumer", "projects/\(client.projectNumber)"), ("service", "fcm.googleapis.com")])
                    ]
                )
            }
            guard quotaProjects.contains(quotaProject) else { throw Self.quotaProjectRefused(quotaProject) }
            return grant
        }
        guard let project, grant.projectID != project else { return grant }
        throw Self.permissionDenied(project: project)
    }

    /// A connection's last `authorization` value and what it granted, checked once. A class, so
    /// that the check of a message with the same credential reads it in place: copied out, the
    /// grant's three strings cost about 100 instructions of reference counting a message.
    final class CachedGrant {
        let authorization: String
        let grant: AccessTokenStore.Grant

        init(authorization: String, grant: AccessTokenStore.Grant) {
            self.authorization = authorization
            self.grant = grant
        }

        /// Whether `request` carries this credential, still valid at `now`, for the grant's own
        /// `project`: what ``authenticate(_:project:connection:now:)`` would let through with
        /// this grant, without copying it.
        @inline(__always)
        func admits(_ request: HTTPServerRequest, project: String, now: PushInstant) -> Bool {
            grant.expiresAt > now.secondsSinceEpoch && grant.projectID == project && request.headers[known: .authorization] == authorization
        }
    }

    /// Google's answer to a credential of another project than `project`.
    static func permissionDenied(project: String) -> GoogleError {
        let resource = "//cloudresourcemanager.googleapis.com/projects/\(project)"
        return GoogleError(
            code: 403, message: "Permission 'cloudmessaging.messages.create' denied on resource '\(resource)' (or it may not exist).",
            status: "PERMISSION_DENIED",
            details: [
                .errorInfo(
                    reason: "IAM_PERMISSION_DENIED",
                    metadata: [("permission", "cloudmessaging.messages.create"), ("resource", "projects/\(project)")])
            ]
        )
    }

    /// A JWT a service account signed itself, with audience `https://fcm.googleapis.com/` or a
    /// sending scope (fcm.md §8), verified once and cached until it expires.
    func selfSignedGrant(_ token: String, now: PushInstant) -> AccessTokenStore.Grant? {
        if let cached = selfSigned.withLock({ $0[token] }) {
            return cached
        }
        guard token.utf8.count(where: { $0 == UInt8(ascii: ".") }) == 2,
            let assertion = try? OAuthAssertion.parse(Substring(token)),
            let account = accounts.first(where: { $0.clientEmail == assertion.issuer })
        else { return nil }
        do {
            try assertion.verify(with: account.publicKey)
            try assertion.checkTimeframe(now: now)
        } catch {
            return nil
        }
        let audienceOK = assertion.audience.map { $0.hasPrefix("https://fcm.googleapis.com") } ?? false
        let scopeOK = OAuthTokenEndpoint.allowsSending(scope: assertion.scope ?? "")
        guard audienceOK || scopeOK, let expiresAt = assertion.expiresAt else { return nil }
        // An audience-only JWT (no scope claim) is FCM's own kind of self-signed credential.
        let grant = AccessTokenStore.Grant(
            clientEmail: account.clientEmail, projectID: account.projectID,
            scope: scopeOK ? assertion.scope ?? "" : OAuthTokenEndpoint.sendScopes[0], expiresAt: expiresAt
        )
        selfSigned.withLock { cache in
            if cache.count > 10_000 { cache.removeAll() }
            cache[token] = grant
        }
        return grant
    }
}
