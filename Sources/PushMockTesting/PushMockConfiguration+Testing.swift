import Foundation
public import PushMockServer

extension PushMockConfiguration {
    /// Development material minted once per process (an RSA key takes a moment), shared by every
    /// `testing()` configuration: a CA, a server certificate for `localhost`, an APNs key and an
    /// FCM service account. Use it to build a configuration of your own that trusts the same CA.
    public static let testMaterial: DevCertificates = {
        do {
            return try DevCertificates.generate()
        } catch {
            fatalError("PushMockTesting cannot mint development certificates: \(error)")
        }
    }()

    /// A configuration for in-process tests that needs no files: a CA and server certificate, an
    /// APNs key (`PUSHMOCK01`, team `PMTEAM0001`, bundle `com.example.app`) and an FCM service
    /// account (project `pushmock-demo`) minted in memory; free ports (push and inspection); no
    /// idle timeout and no protocol deadline. `withPushMockServer()` uses it by default.
    ///
    /// ```swift
    /// let clock = PushMockClock.manual(startingAt: 1_767_225_600_000)
    /// try await withPushMockServer(.testing(clock: clock)) { server in … }
    /// ```
    public static func testing(clock: PushMockClock = .system) -> PushMockConfiguration {
        let material = testMaterial
        var configuration = PushMockConfiguration()
        configuration.pushPort = 0
        configuration.inspectionPort = 0
        configuration.tls = .pem(certificateChain: material.serverCertificatePEM, privateKey: material.serverPrivateKeyPEM)
        configuration.idleTimeoutSeconds = nil
        // Nor a protocol deadline: on a busy machine a test's connection can be written to more
        // than ten seconds after it opened, and the server would have closed it under the test.
        configuration.protocolDeadlineSeconds = nil
        // A test's own machine may be busy: the catalogue's sends wait as long as a test would.
        configuration.catalogueAnswerDeadline = .seconds(60)
        configuration.storeStartPatience = .seconds(60)
        configuration.clock = clock
        configuration.apns.keys = [
            .init(keyID: DevCertificates.sampleAPNSKeyID, teamID: DevCertificates.sampleAPNSTeamID, source: .pem(material.apnsAuthKeyP8))
        ]
        configuration.apns.certificateTrustRoots = [.pem(material.caCertificatePEM)]
        configuration.fcm.serviceAccounts = [.pem(material.fcmServiceAccountJSON)]
        configuration.developmentMaterial = material
        return configuration
    }
}
