import Crypto
public import Foundation

/// What runtimes that ignore the system store need to trust the dev CA (`pushmock trust env`):
/// a PEM bundle of the system's roots plus the dev CA (for `SSL_CERT_FILE`, `REQUESTS_CA_BUNDLE`,
/// `CURL_CA_BUNDLE`, which replace the default roots rather than add to them), and a Java
/// truststore (JKS) of the same certificates for `JAVA_TOOL_OPTIONS`.
///
/// ```swift
/// let files = try TrustMaterial.write(caPEM: try String(contentsOfFile: "Certs/ca.pem"), to: URL(fileURLWithPath: "/tmp/trust"))
/// print(files.bundle.path, files.javaTrustStore.path)
/// ```
public enum TrustMaterial {
    /// Where Linux distributions and macOS keep their root bundle, in the order tried.
    public static let systemBundles = ["/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/cert.pem"]
    /// The truststore's password (Java's customary default; the store holds only public certificates).
    public static let javaTrustStorePassword = "changeit"
    /// The alias of the dev CA in the truststore, and its file name in the system store.
    public static let alias = "pushmock-dev-ca"

    /// The files written.
    public struct Files: Sendable {
        /// The dev CA alone (`NODE_EXTRA_CA_CERTS`, which adds to Node's roots).
        public var ca: URL
        /// The system roots and the dev CA, PEM.
        public var bundle: URL
        /// The same certificates as a Java KeyStore.
        public var javaTrustStore: URL
        /// How many system roots were found (0: no system bundle, only the dev CA is trusted).
        public var systemRoots: Int
    }

    /// Writes the CA, the bundle and the truststore into `directory` (created if missing).
    public static func write(
        caPEM: String, to directory: URL, systemBundle: String? = systemBundles.first { FileManager.default.fileExists(atPath: $0) },
        now: Date = Date()
    ) throws -> Files {
        let ca = pemCertificates(in: caPEM)
        guard let caDER = ca.first.flatMap(der(of:)) else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "the CA file holds no PEM certificate"])
        }
        let system = systemBundle.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) }.map(pemCertificates(in:)) ?? []
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let files = Files(
            ca: directory.appendingPathComponent("pushmock-ca.pem"),
            bundle: directory.appendingPathComponent("ca-bundle.pem"),
            javaTrustStore: directory.appendingPathComponent("truststore.jks"),
            systemRoots: system.count
        )
        try Data(ca[0].utf8).write(to: files.ca)
        try Data((system + [ca[0]]).joined(separator: "\n").utf8).write(to: files.bundle)
        var entries = [(alias: alias, der: caDER)]
        for (index, pem) in system.enumerated() {
            if let der = der(of: pem) { entries.append(("system-\(index + 1)", der)) }
        }
        try Data(javaKeyStore(entries, password: javaTrustStorePassword, date: now)).write(to: files.javaTrustStore)
        return files
    }

    /// Every `-----BEGIN CERTIFICATE-----` block of a PEM text, in order.
    public static func pemCertificates(in text: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in text.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed == "-----BEGIN CERTIFICATE-----" {
                current = [Substring(trimmed)]
            } else if trimmed == "-----END CERTIFICATE-----", var block = current {
                block.append(Substring(trimmed))
                blocks.append(block.joined(separator: "\n") + "\n")
                current = nil
            } else {
                current?.append(Substring(trimmed))
            }
        }
        return blocks
    }

    /// The DER bytes of one PEM certificate block.
    public static func der(of pem: String) -> [UInt8]? {
        let base64 = pem.split(whereSeparator: \.isNewline).filter { !$0.hasPrefix("-----") }.joined()
        return Data(base64Encoded: base64).map(Array.init)
    }

    /// A Java KeyStore (JKS, version 2) of trusted-certificate entries: what
    /// `-Djavax.net.ssl.trustStore` reads on every Java version (8 to 21+), written without keytool.
    public static func javaKeyStore(_ entries: [(alias: String, der: [UInt8])], password: String, date: Date) -> [UInt8] {
        var out: [UInt8] = []
        func bigEndian(_ value: UInt64, bytes: Int) {
            for index in stride(from: bytes - 1, through: 0, by: -1) { out.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(index)))) }
        }
        func int32(_ value: Int) { bigEndian(UInt64(UInt32(value)), bytes: 4) }
        func utf(_ text: String) {
            let bytes = Array(text.utf8)
            bigEndian(UInt64(bytes.count), bytes: 2)
            out += bytes
        }
        int32(0xFEED_FEED)
        int32(2)
        int32(entries.count)
        let milliseconds = UInt64(max(0, date.timeIntervalSince1970 * 1000))
        for entry in entries {
            int32(2)  // a trusted certificate
            utf(entry.alias.lowercased())
            bigEndian(milliseconds, bytes: 8)
            utf("X.509")
            int32(entry.der.count)
            out += entry.der
        }
        // The integrity digest: SHA-1 over the password as UTF-16BE, "Mighty Aphrodite", then the store.
        var sha = Insecure.SHA1()
        sha.update(data: password.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] })
        sha.update(data: Array("Mighty Aphrodite".utf8))
        sha.update(data: out)
        out += Array(sha.finalize())
        return out
    }
}
