import Crypto
import Foundation
import PushMockServer
import PushMockTestSupport
import Testing

@Suite("pushmock trust env: the bundle and the Java truststore")
struct TrustMaterialTests {
    /// Reads a JKS back: magic, version, entries, and the integrity digest keytool checks.
    static func readJKS(_ bytes: [UInt8], password: String) throws -> [(alias: String, der: [UInt8])] {
        var offset = 0
        func int(_ count: Int) throws -> Int {
            guard offset + count <= bytes.count else { throw TestFailure("truncated at \(offset)") }
            defer { offset += count }
            return bytes[offset..<(offset + count)].reduce(0) { $0 << 8 | Int($1) }
        }
        func utf() throws -> String {
            let count = try int(2)
            defer { offset += count }
            return String(decoding: bytes[offset..<(offset + count)], as: UTF8.self)
        }
        #expect(try int(4) == 0xFEED_FEED)
        #expect(try int(4) == 2)
        var entries: [(String, [UInt8])] = []
        for _ in 0..<(try int(4)) {
            #expect(try int(4) == 2, "trusted certificate entries only")
            let alias = try utf()
            _ = try int(8)
            #expect(try utf() == "X.509")
            let count = try int(4)
            entries.append((alias, Array(bytes[offset..<(offset + count)])))
            offset += count
        }
        var sha = Insecure.SHA1()
        sha.update(data: password.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] })
        sha.update(data: Array("Mighty Aphrodite".utf8))
        sha.update(data: Array(bytes[..<offset]))
        #expect(Array(sha.finalize()) == Array(bytes[offset...]), "the digest keytool verifies with the password")
        return entries
    }

    @Test("the bundle holds the system roots and the dev CA; the truststore holds the same, readable with changeit")
    func files() throws {
        let directory = URL(fileURLWithPath: TestScratch.path("trust"))
        defer { try? FileManager.default.removeItem(at: directory) }
        let ca = TestTLS.material.caCertificatePEM
        let system = directory.appendingPathComponent("system.pem")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // Two "system roots": any two certificates will do.
        try Data((TestTLS.material.serverCertificatePEM + TestTLS.material.apnsClientCertificatePEM).utf8).write(to: system)
        let files = try TrustMaterial.write(caPEM: ca, to: directory.appendingPathComponent("out"), systemBundle: system.path)
        #expect(files.systemRoots == 2)
        let bundle = try String(contentsOf: files.bundle, encoding: .utf8)
        #expect(TrustMaterial.pemCertificates(in: bundle).count == 3)
        #expect(bundle.hasSuffix(TrustMaterial.pemCertificates(in: ca)[0]), "the dev CA comes last")
        let entries = try Self.readJKS(Array(try Data(contentsOf: files.javaTrustStore)), password: TrustMaterial.javaTrustStorePassword)
        #expect(entries.map(\.alias) == ["pushmock-dev-ca", "system-1", "system-2"])
        #expect(entries[0].der == TrustMaterial.der(of: ca))
        #expect(try String(contentsOf: files.ca, encoding: .utf8) == TrustMaterial.pemCertificates(in: ca)[0])
        #expect(throws: (any Error).self) { try TrustMaterial.write(caPEM: "not a certificate", to: directory) }
    }
}
