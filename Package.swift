// swift-tools-version: 6.1
import PackageDescription

/// One set of Swift settings for every target (DESIGN.md, convention 1). The release builds that
/// ship or are measured (`scripts/release-flags` sets PUSHMOCK_CROSS_MODULE_OPTIMIZATION) also
/// optimize PushMock's own modules across their boundaries: about 300 instructions a push, for
/// 74 KB of stripped binary. Those are unsafe flags, which SwiftPM refuses in a dependency: a package
/// that depends on this one never sets the variable, and never sees them.
let swiftSettings: [SwiftSetting] =
    [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
        .enableUpcomingFeature("InternalImportsByDefault"),
    ]
    + (Context.environment["PUSHMOCK_CROSS_MODULE_OPTIMIZATION"] == "1"
        ? [.unsafeFlags(["-cross-module-optimization"], .when(configuration: .release))] : [])

/// What the server's test targets (one per room) build on.
let serverTestDependencies: [Target.Dependency] = [
    "PushMockPostgres",
    "PushMockSQLite",
    "PushMockStores",
    "PushMockSwiftSource",
    "PushMockServer",
    "PushMockInspection",
    "PushMockTestSupport",
    "PushMockCore",
    "PushMockStore",
    .product(name: "NIOHTTP2", package: "swift-nio-http2"),
    .product(name: "NIOHPACK", package: "swift-nio-http2"),
    .product(name: "Crypto", package: "swift-crypto"),
    .product(name: "_CryptoExtras", package: "swift-crypto"),
    "PushMockTesting",
    .product(name: "AsyncHTTPClient", package: "async-http-client"),
    .product(name: "NIOCore", package: "swift-nio"),
    .product(name: "NIOHTTP1", package: "swift-nio"),
    .product(name: "NIOSSL", package: "swift-nio-ssl"),
    .product(name: "Prometheus", package: "swift-prometheus"),
    .product(name: "PostgresNIO", package: "postgres-nio"),
    .product(name: "Logging", package: "swift-log"),
    .product(name: "NIOPosix", package: "swift-nio"),
    "PushMockTransport",
]

let package = Package(
    name: "PushMock",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "pushmock", targets: ["pushmock"]),
        // The API, as docs/Public-API.md says: the test library (which re-exports the types its
        // users name), and the SQLite and PostgreSQL stores a test can add to it.
        .library(name: "PushMockTesting", targets: ["PushMockTesting"]),
        .library(name: "PushMockStores", targets: ["PushMockStores"]),
        // Not API: the modules the fuzz package (Fuzz/) drives. The underscore says so.
        .library(
            name: "_PushMockFuzzing",
            targets: ["PushMockBytes", "PushMockCore", "PushMockServer", "PushMockInspection", "PushMockStore", "PushMockSwiftSource"]
        ),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.0"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.0"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // An independent HTTP/1.1 + HTTP/2 client (tests, and PushMockTesting.PushMockClient), and raw HTTP/2 frames (tests).
        // The executable sends with the transport's own client (PushMockTransport/Client).
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        // The PostgreSQL store shared by a fleet (batched unnest inserts, LISTEN/NOTIFY).
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CNGHTTP2",
            pkgConfig: "libnghttp2",
            providers: [.apt(["libnghttp2-dev"]), .brew(["nghttp2"])]
        ),
        // The system's sqlite3 for the SQLite store, and its process-wide settings, which only C
        // can make.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        // The one header type from the wire to the record (the transport's and the core's).
        .target(name: "PushMockHTTP", swiftSettings: swiftSettings),
        // The byte-level code that needs raw pointers, in one place with its own tests: views,
        // writers, eight-bytes-at-once checks, packed-record formats.
        .target(name: "PushMockBytes", swiftSettings: swiftSettings),
        .target(
            name: "PushMockCore",
            dependencies: [
                "PushMockHTTP",
                "PushMockBytes",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // The store protocol, the memory store and what every store shares; no database.
        .target(
            name: "PushMockStore",
            dependencies: ["PushMockCore", "PushMockBytes"],
            swiftSettings: swiftSettings
        ),
        // The SQLite store (the system sqlite3 through its C API: WAL, a writer and readers,
        // versioned migrations), linked by the pushmock executable, not by PushMockTesting.
        .target(
            name: "PushMockSQLite",
            dependencies: ["PushMockCore", "PushMockStore", "PushMockBytes", "CSQLite"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "PushMockPostgres",
            dependencies: [
                "PushMockCore",
                "PushMockStore",
                "PushMockBytes",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "PushMockTransport",
            dependencies: [
                "CNGHTTP2",
                "PushMockHTTP",
                "PushMockBytes",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "PushMockInspection",
            dependencies: [
                "PushMockCore",
                "PushMockStore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            resources: [.copy("Resources")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "PushMockServer",
            dependencies: [
                "PushMockHTTP",
                "PushMockCore",
                "PushMockBytes",
                "PushMockStore",
                "PushMockInspection",
                "PushMockTransport",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                "PushMockOutbound",
            ],
            swiftSettings: swiftSettings
        ),
        // Outbound HTTP, in its own room: the relay's client to Apple, Google or another PushMock,
        // and the loopback sender through which the catalogue's "Send it", "Send again" and
        // /api/v1/send go through the push port as a client's would.
        .target(
            name: "PushMockOutbound",
            dependencies: [
                "PushMockCore",
                "PushMockInspection",
                "PushMockTransport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),
        // The stores `serve --store` opens besides memory (SQLite, PostgreSQL), registered with the
        // server by the executable (and by tests that use them).
        .target(
            name: "PushMockStores",
            dependencies: [
                "PushMockServer",
                "PushMockStore",
                "PushMockSQLite",
                "PushMockPostgres",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "PushMockTesting",
            dependencies: [
                "PushMockServer",
                "PushMockInspection",
                "PushMockCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                "PushMockStore",
            ],
            swiftSettings: swiftSettings
        ),
        // An app's ActivityAttributes types read from its Swift source (its own small reader of
        // declarations). Only the `pushmock` executable links it.
        .target(
            name: "PushMockSwiftSource",
            dependencies: [
                "PushMockCore",
                "PushMockHTTP",
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "pushmock",
            dependencies: [
                "PushMockSwiftSource",
                "PushMockServer",
                "PushMockCore",
                "PushMockInspection",
                "PushMockStore",
                "PushMockStores",
                "PushMockSQLite",
                "PushMockPostgres",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                "PushMockTransport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushMockBytesTests",
            dependencies: ["PushMockBytes"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushMockCoreTests",
            dependencies: [
                "PushMockCore",
                "PushMockBytes",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushMockSwiftSourceTests",
            dependencies: ["PushMockSwiftSource", "PushMockCore", "PushMockInspection", "PushMockServer", "PushMockTesting"],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushMockStoreTests",
            dependencies: ["PushMockStore", "PushMockSQLite", "PushMockPostgres", "PushMockCore", "PushMockBytes", "PushMockTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushMockSQLiteTests",
            dependencies: [
                "PushMockSQLite", "PushMockStore", "PushMockCore", "PushMockBytes", "PushMockTestSupport",
                "CSQLite",
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        // The server's tests by room: the push port, the inspection port, Live Activities, the relay, and
        // the PostgreSQL store (its own rows and a fleet of servers on one database).
        .testTarget(
            name: "PushMockServerTests",
            dependencies: serverTestDependencies,
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushMockInspectionTests",
            dependencies: serverTestDependencies,
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushMockLiveActivityTests",
            dependencies: serverTestDependencies,
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushMockRelayTests",
            dependencies: serverTestDependencies,
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushMockPostgresTests",
            dependencies: serverTestDependencies,
            swiftSettings: swiftSettings
        ),
        .target(
            name: "PushMockTestSupport",
            dependencies: [
                "PushMockPostgres",
                "PushMockSQLite",
                "PushMockStore",
                "PushMockCore",
                "PushMockInspection",
                "PushMockTransport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                "PushMockTesting",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                "PushMockServer",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            path: "Tests/PushMockTestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushMockTestingTests",
            dependencies: [
                "PushMockTesting",
                "PushMockServer",
                "PushMockStore",
                "PushMockInspection",
                "PushMockCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PushMockTransportTests",
            dependencies: [
                "PushMockTransport",
                "CNGHTTP2",
                "PushMockTestSupport",
                "PushMockServer",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
