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
                .product(name: "PushMockBytes", package: "PushMock"),
                .product(name: "PushMockCore", package: "PushMock"),
                .product(name: "PushMockServer", package: "PushMock"),
                .product(name: "PushMockInspection", package: "PushMock"),
                .product(name: "PushMockStore", package: "PushMock"),
                .product(name: "PushMockSwiftSource", package: "PushMock"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        )
    ]
)
