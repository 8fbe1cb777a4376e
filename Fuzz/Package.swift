// swift-tools-version: 6.1
// libFuzzer targets for PushMock's parsers (issue 10). A separate package, so that the main build
// never links an executable without `main`: build and run it with `scripts/fuzz`.
import PackageDescription

let package = Package(
    name: "PushMockFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "PushMock", path: ".."),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.0"..<"5.0.0"),
    ],
    targets: [
        .executableTarget(
            name: "PushMockFuzz",
            dependencies: [
                // PushMock's internal modules, behind its one product that is not API.
                .product(name: "_PushMockFuzzing", package: "PushMock"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        )
    ]
)
