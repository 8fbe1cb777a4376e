import ArgumentParser
import Foundation
import PushMockServer

/// `pushmock trust install | uninstall | env`: make clients trust the dev CA, so that unmodified
/// SDKs reach PushMock as the real hosts (transparent mode, the CONNECT proxy).
struct TrustCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trust",
        abstract: "Trust the development CA (Certs/ca.pem): system-wide, or per runtime through environment variables.",
        subcommands: [Install.self, Uninstall.self, Env.self]
    )

    /// Where Debian and Ubuntu (and Alpine) take local CAs from.
    static let anchorDirectory = "/usr/local/share/ca-certificates"
    static var anchorPath: String { anchorDirectory + "/\(TrustMaterial.alias).crt" }

    static let elsewhere = """
        elsewhere: Fedora/RHEL: cp Certs/ca.pem /etc/pki/ca-trust/source/anchors/pushmock-dev-ca.pem && update-ca-trust; \
        macOS: sudo security add-trusted-cert -d -r trustRoot -k /Library/Keychains/System.keychain Certs/ca.pem; \
        or use `pushmock trust env` per process
        """

    static func readCA(_ path: String) throws -> String {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8), !TrustMaterial.pemCertificates(in: text).isEmpty else {
            throw ValidationError("\(path) is not a PEM certificate (run from the repository root, or pass --ca)")
        }
        return text
    }

    /// Runs update-ca-certificates (`--fresh`: rebuild every link, so a removed CA leaves none behind).
    static func updateStore(fresh: Bool = false) throws {
        let tool = ["/usr/sbin/update-ca-certificates", "/usr/bin/update-ca-certificates"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let tool else {
            throw ValidationError("update-ca-certificates not found: this is not Debian, Ubuntu or Alpine; \(elsewhere)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = fresh ? ["--fresh"] : []
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw ValidationError("\(tool) failed with exit status \(process.terminationStatus)") }
    }

    struct Install: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add the dev CA to the system store (Debian/Ubuntu: /usr/local/share/ca-certificates + update-ca-certificates; needs root).")

        @Option(help: "The CA certificate (PEM).")
        var ca = DevMaterialDirectory.resolve(dataDirectory: nil).file(DevCertificates.FileName.caCertificate)

        func run() async throws {
            let text = try TrustCommand.readCA(ca)
            guard FileManager.default.fileExists(atPath: TrustCommand.anchorDirectory) else {
                throw ValidationError("\(TrustCommand.anchorDirectory) does not exist: this is not Debian or Ubuntu; \(TrustCommand.elsewhere)")
            }
            guard FileManager.default.isWritableFile(atPath: TrustCommand.anchorDirectory) else {
                throw ValidationError("\(TrustCommand.anchorDirectory) is not writable: run as root (sudo pushmock trust install)")
            }
            try Data(TrustMaterial.pemCertificates(in: text)[0].utf8).write(to: URL(fileURLWithPath: TrustCommand.anchorPath))
            try TrustCommand.updateStore()
            print("installed \(TrustCommand.anchorPath): the PushMock dev CA is trusted system-wide (remove it with `pushmock trust uninstall`)")
            print("runtimes with their own roots (Node, Python requests/httpx with certifi, Java) also need `eval \"$(pushmock trust env)\"`")
        }
    }

    struct Uninstall: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove the dev CA from the system store (needs root).")

        func run() async throws {
            guard FileManager.default.fileExists(atPath: TrustCommand.anchorPath) else {
                print("\(TrustCommand.anchorPath) is not there: nothing to remove")
                return
            }
            do {
                try FileManager.default.removeItem(atPath: TrustCommand.anchorPath)
            } catch {
                throw ValidationError("cannot remove \(TrustCommand.anchorPath): \(error.localizedDescription) (run as root)")
            }
            try TrustCommand.updateStore(fresh: true)
            print("removed \(TrustCommand.anchorPath); the system store no longer trusts the PushMock dev CA")
        }
    }

    struct Env: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the variables that make runtimes trust the dev CA: eval \"$(pushmock trust env)\".",
            discussion: """
                Writes into --dir: pushmock-ca.pem, ca-bundle.pem (the system roots plus the dev CA, since SSL_CERT_FILE, \
                REQUESTS_CA_BUNDLE and CURL_CA_BUNDLE replace the roots) and truststore.jks (the same for Java, password changeit).
                """
        )

        @Option(help: "The CA certificate (PEM).")
        var ca = DevMaterialDirectory.resolve(dataDirectory: nil).file(DevCertificates.FileName.caCertificate)

        @Option(help: "Where to write the bundle and the truststore (default: $XDG_CACHE_HOME/pushmock/trust or ~/.cache/pushmock/trust).")
        var dir: String?

        func run() async throws {
            let text = try TrustCommand.readCA(ca)
            let environment = ProcessInfo.processInfo.environment
            // $HOME first, as every Unix tool reads it (a container or CI job sets it to a folder
            // other than the account's).
            let home =
                environment["HOME"].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : nil } ?? FileManager.default.homeDirectoryForCurrentUser
            let base =
                environment["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : nil }
                ?? home.appendingPathComponent(".cache")
            let directory = dir.map { URL(fileURLWithPath: $0) } ?? base.appendingPathComponent("pushmock/trust")
            let files = try TrustMaterial.write(caPEM: text, to: directory.standardizedFileURL)
            if files.systemRoots == 0 {
                FileHandle.standardError.write(
                    Data(
                        "pushmock trust env: no system root bundle found (\(TrustMaterial.systemBundles.joined(separator: ", "))): the bundle trusts only the dev CA\n"
                            .utf8))
            }
            func quoted(_ value: String) -> String { "'" + value.replacing("'", with: #"'\''"#) + "'" }
            let java =
                "-Djavax.net.ssl.trustStore=\(files.javaTrustStore.path) -Djavax.net.ssl.trustStorePassword=\(TrustMaterial.javaTrustStorePassword) -Djavax.net.ssl.trustStoreType=JKS"
            print("export NODE_EXTRA_CA_CERTS=\(quoted(files.ca.path))")
            print("export SSL_CERT_FILE=\(quoted(files.bundle.path))")
            print("export REQUESTS_CA_BUNDLE=\(quoted(files.bundle.path))")
            print("export CURL_CA_BUNDLE=\(quoted(files.bundle.path))")
            print("export JAVA_TOOL_OPTIONS=\(quoted(java))")
        }
    }
}
