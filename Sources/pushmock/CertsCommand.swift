import ArgumentParser
import Foundation
import PushMockServer

/// `pushmock certs generate`: writes a fresh development CA, server certificate, sample APNs key
/// and sample FCM service account, so nobody needs openssl.
struct CertsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "certs",
        abstract: "Development certificates and credentials (not secret, not for production).",
        subcommands: [Generate.self]
    )

    struct Generate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Generate a dev CA, a server certificate, a sample APNs .p8 key and a sample FCM service account."
        )

        @Option(help: "Directory to write into (created if missing).")
        var out = "Certs"

        @Option(help: "token_uri written into the FCM service account.")
        var tokenURI = "https://localhost:2197/token"

        @Option(
            name: .customLong("cert-host"),
            help: ArgumentHelp(
                "A name the server certificate covers besides localhost, 127.0.0.1, ::1 and the real push hosts (a host name or an IP address). Repeatable.",
                valueName: "name"))
        var certHosts: [String] = []

        func validate() throws {
            for name in certHosts {
                do { _ = try CertificateHost(name) } catch { throw ValidationError("\(error)") }
            }
        }

        func run() async throws {
            let material = try DevCertificates.generate(tokenURI: tokenURI, extraHosts: try certHosts.map(CertificateHost.init))
            let written = try material.write(to: URL(fileURLWithPath: out, isDirectory: true))
            for url in written {
                print("wrote \(url.path)")
            }
            print("APNs sample key: key id \(DevCertificates.sampleAPNSKeyID), team id \(DevCertificates.sampleAPNSTeamID)")
        }
    }
}
