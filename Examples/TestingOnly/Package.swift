// swift-tools-version: 6.1
// A test target that depends on PushMockTesting alone, as an app's backend tests would: CI builds
// it and checks that neither postgres-nio nor the SQLite store (nor the Swift source reader) was built for it.
import PackageDescription

let package = Package(
    name: "TestingOnly",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "PushMock", path: "../..")],
    targets: [
        .testTarget(name: "TestingOnlyTests", dependencies: [.product(name: "PushMockTesting", package: "PushMock")])
    ]
)
