import ArgumentParser
import Foundation
import PushMockCore
import PushMockServer

/// Where and how the push port listens.
struct ListenerOptions: ParsableArguments {
    @Option(help: "Address to bind the push listeners to (default 127.0.0.1).")
    var host: String?

    @Option(name: .customLong("port"), help: "TLS push port, 0 picks a free one (default 2197).")
    var pushPort: Int?

    @Option(help: "Also serve h2c (prior knowledge) and HTTP/1.1 in cleartext on this port.")
    var cleartextPort: Int?

    @Flag(
        help:
            "Answer as the real hosts (api.push.apple.com, fcm.googleapis.com, oauth2.googleapis.com, iid.googleapis.com…) by :authority/SNI, on port 443 unless --port says otherwise; other names but loopback get 421. Point the names at PushMock (/etc/hosts, --add-host, hostAliases) and trust Certs/ca.pem (pushmock trust)."
    )
    var transparent = false

    @Option(
        help:
            "Serve a CONNECT proxy on this port (HTTPS_PROXY=http://127.0.0.1:PORT): tunnels to the real push hosts end at PushMock with the dev certificate; CONNECT to any other host gets 403."
    )
    var proxyPort: Int?

    @Option(
        help:
            "Serve Google's metadata server on this port (on the inspection host): Google's auth libraries get PushMock tokens for the first service account with no key file (GCE_METADATA_HOST=127.0.0.1:PORT GCE_METADATA_IP=127.0.0.1:PORT)."
    )
    var metadataPort: Int?

    @Option(help: "Server certificate chain, PEM (default Certs/server.pem).")
    var cert: String?

    @Option(help: "Server private key, PEM (default Certs/server-key.pem).")
    var key: String?

    @Option(help: "Largest request body read, in bytes (default 65536); APNs answers larger ones 413.")
    var maxBodySize: Int?

    @Option(help: "Seconds before an idle connection gets GOAWAY, 0 never (default 3600).")
    var idleTimeout: Int64?

    @Option(help: "Connections the push port keeps open at once; more are closed at once (default: from the descriptor limit, RLIMIT_NOFILE).")
    var maxConnections: Int?

    @Option(help: "Connections one client address keeps open on the push port at once; more are closed at once (default 1024).")
    var maxConnectionsPerClient: Int?

    @Option(help: "Seconds a new connection has to finish TLS and show its protocol before it is closed, 0 never (default 10).")
    var protocolDeadline: Int64?

    @Option(help: "Event loop threads (default: one per core).")
    var threads: Int?

    @Option(help: "What answers on the push port (default push).")
    var mode: PushMockConfiguration.Mode?

    /// The ports these options give, by flag, for the range check.
    var ports: [(String, Int?)] {
        [("--port", pushPort), ("--cleartext-port", cleartextPort), ("--proxy-port", proxyPort), ("--metadata-port", metadataPort)]
    }

    func check() throws {
        if let maxBodySize, maxBodySize <= 0 { throw ValidationError("--max-body-size must be positive") }
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1") }
        if let idleTimeout, idleTimeout < 0 { throw ValidationError("--idle-timeout must be 0 or more") }
        if let maxConnections, maxConnections < 1 { throw ValidationError("--max-connections must be at least 1 (got \(maxConnections))") }
        if let maxConnectionsPerClient, maxConnectionsPerClient < 1 {
            throw ValidationError("--max-connections-per-client must be at least 1 (got \(maxConnectionsPerClient))")
        }
        if let protocolDeadline, !(0...3600).contains(protocolDeadline) {
            throw ValidationError("--protocol-deadline must be 0 to 3600 seconds (got \(protocolDeadline))")
        }
        if (cert == nil) != (key == nil) { throw ValidationError("--cert and --key go together") }
    }

    func apply(to configuration: inout PushMockConfiguration) {
        if let host { configuration.host = host }
        if transparent {
            configuration.transparent = true
            // The real hosts' port, unless --port (or a file with another port) chose one.
            if configuration.pushPort == PushMockConfiguration().pushPort { configuration.pushPort = 443 }
        }
        if let proxyPort { configuration.proxyPort = proxyPort }
        if let metadataPort { configuration.metadataPort = metadataPort }
        if let pushPort { configuration.pushPort = pushPort }
        if let cleartextPort { configuration.cleartextPort = cleartextPort }
        if let cert, let key { configuration.tls = .files(certificateChain: cert, privateKey: key) }
        if let maxBodySize { configuration.maxRequestBodySize = maxBodySize }
        if let idleTimeout { configuration.idleTimeoutSeconds = idleTimeout > 0 ? idleTimeout : nil }
        if let threads { configuration.threads = threads }
        if let maxConnections { configuration.maxConnections = maxConnections }
        if let maxConnectionsPerClient { configuration.maxConnectionsPerClient = maxConnectionsPerClient }
        if let protocolDeadline { configuration.protocolDeadlineSeconds = protocolDeadline > 0 ? protocolDeadline : nil }
        if let mode { configuration.mode = mode }
    }
}
