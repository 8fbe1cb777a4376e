import Crypto
import Foundation
import PushMockBytes
import PushMockCore
import PushMockInspection
import PushMockServer
import PushMockStore
import PushMockSwiftSource

/// One libFuzzer entry point for every parser on a request path (issue 10); `PUSHMOCK_FUZZ`
/// chooses the target: `apns`, `jwt`, `fcm`, `inspection`, `config`, `bytes` or `swift`. A crash, trap or
/// sanitizer report is a finding; an answer of any kind is a pass.
enum FuzzTargets {
    static let target = ProcessInfo.processInfo.environment["PUSHMOCK_FUZZ"] ?? "apns"
    static let now = PushInstant(secondsSinceEpoch: 1_767_225_600)

    static let sampleKey = P256.Signing.PrivateKey()
    static let validator: APNSValidator = {
        var registry = APNSCredentialRegistry()
        registry.add(APNSSigningKey(keyID: "KEY0000001", teamID: "TEAM000001", publicKey: sampleKey.publicKey))
        registry.addBundle("com.example.app", team: "TEAM000001")
        return APNSValidator(tokens: ProviderTokenVerifier(registry: registry), devices: DeviceRegistry())
    }()
    static let fcm = FCMMessageValidator()
    static let store = InMemoryDeliveryStore(retention: 16)
    static let state = FuzzState()
    static let router = InspectionRouter(store: store, devices: state, faults: state, activities: state, control: state)
    static let browserGuard = InspectionGuard(inspectionHost: "127.0.0.1")

    static func run(_ bytes: [UInt8]) {
        switch target {
        case "apns": apns(bytes)
        case "jwt": jwt(bytes)
        case "fcm": _ = try? fcm.validate(bytes, now: now)
        case "inspection": inspection(bytes)
        case "config": config(bytes)
        case "bytes": byteLevel(bytes)
        case "swift": swiftSource(bytes)
        default: fatalError("PUSHMOCK_FUZZ must be apns, jwt, fcm, inspection, config, bytes or swift")
        }
    }

    /// Input: a first byte choosing token or certificate auth, `name: value` lines (the first line
    /// is the path), an empty line, then the body.
    static func apns(_ bytes: [UInt8]) {
        guard let selector = bytes.first else { return }
        let rest = Array(bytes.dropFirst())
        let split = rest.firstRange(of: [0x0A, 0x0A])
        let head = String(decoding: rest[..<(split?.lowerBound ?? rest.endIndex)], as: UTF8.self)
        let body = split.map { Array(rest[$0.upperBound...]) } ?? []
        var lines = head.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let path = lines.isEmpty ? "/3/device/x" : lines.removeFirst()
        let headers = lines.compactMap { line -> HeaderField? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return HeaderField(name: String(line[..<colon]).lowercased(), value: String(line[line.index(after: colon)...].drop { $0 == " " }))
        }
        let credential: APNSConnectionCredential =
            selector & 1 == 0
            ? .token
            : .certificate(
                .init(
                    subject: "UID=com.example.app", bundleID: "com.example.app", topics: ["com.example.app"], environments: [.sandbox, .production]))
        var auth = APNSConnectionAuth()
        var ids = IDGenerator(seed: 1)
        let request = APNSRequest(
            method: selector & 2 == 0 ? "POST" : "GET", path: path, headers: headers, body: body,
            environment: selector & 4 == 0 ? .sandbox : .production)
        _ = validator.validate(request, credential: credential, auth: &auth, now: now, ids: &ids)
    }

    static func jwt(_ bytes: [UInt8]) {
        let text = Substring(String(decoding: bytes, as: UTF8.self))
        _ = try? ProviderToken.parse(text)
        if let assertion = try? OAuthAssertion.parse(text) {
            _ = try? assertion.checkTimeframe(now: now)
        }
        _ = OAuthTokenEndpoint(accounts: []).handle(form: bytes, now: now, store: AccessTokenStore())
    }

    /// Input: a request target (`/api/v1/deliveries/wait?…`), a newline, then a JSON body.
    static func inspection(_ bytes: [UInt8]) {
        let newline = bytes.firstIndex(of: 0x0A) ?? bytes.endIndex
        let target = String(decoding: bytes[..<newline], as: UTF8.self)
        let body = newline < bytes.endIndex ? Array(bytes[(newline + 1)...]) : []
        // Every method through the route table (waits time out at once: `timeout` is forced to 0).
        for method in ["GET", "PUT", "DELETE", "POST"] {
            let request = InspectionRequest(
                method: method, target: target + (target.contains("?") ? "&" : "?") + "timeout=0", headers: [("x-pushmock-client", "fuzz")],
                body: body)
            let done = DispatchSemaphore(value: 0)
            Task {
                if case .stream(_, let start) = await router.respond(to: request) { start(ClosedSink()) }
                done.signal()
            }
            done.wait()
        }
        let request = InspectionRequest(method: "GET", target: target, headers: [("origin", target)], body: body)
        _ = browserGuard.hostRefusal(path: request.path, host: target)
        _ = browserGuard.crossSiteRefusal(method: "POST", path: request.path, headers: request.headers)
        _ = JSONValue.parse(body)
    }

    /// PushMockBytes: damaged packed records read without reading past their end; strings and
    /// counts written and read back whole; views compared as arrays compare. A wrong answer traps.
    static func byteLevel(_ bytes: [UInt8]) {
        guard let selector = bytes.first else { return }
        let rest = Array(bytes.dropFirst())
        rest.withByteView { view in
            // Whatever the bytes, the reader steps as the input directs and stays within them.
            var reader = VarBytes.Reader(view)
            var steps = 0
            while !reader.failed, reader.remaining > 0, steps < 512 {
                let before = reader.offset
                switch (Int(selector) + steps) % 3 {
                case 0: precondition(reader.count() <= view.count || reader.failed)
                case 1: _ = reader.string()
                default: precondition(reader.take(Int(reader.byte()) % 9).count <= view.count)
                }
                precondition(reader.offset <= view.count && (reader.failed || reader.offset > before))
                steps += 1
            }
        }
        // Round trip: the input cut into strings (and nil for an empty piece), written and read back.
        let pieces = rest.split(separator: selector, omittingEmptySubsequences: false).map { $0.isEmpty ? nil : String(decoding: $0, as: UTF8.self) }
        let size = pieces.map(VarBytes.size).reduce(VarBytes.size(pieces.count), +)
        let packed = [UInt8](capacity: size) { out in
            out.putCount(pieces.count)
            for piece in pieces { out.putString(piece) }
        }
        precondition(packed.count == size)
        packed.withByteView { view in
            var reader = VarBytes.Reader(view)
            precondition(reader.count() == pieces.count)
            for piece in pieces { precondition(reader.string() == piece) }
            precondition(!reader.failed && reader.remaining == 0)
        }
        // Views compare as their arrays do, at every split.
        let half = rest.count / 2
        let left = Array(rest[..<half])
        let right = Array(rest[half..<(half * 2)])
        left.withByteView { a in right.withByteView { b in precondition(a.equals(b) == (left == right)) } }
        let text = String(decoding: left, as: UTF8.self)
        let other = String(decoding: right, as: UTF8.self)
        precondition(text.hasSameUTF8(as: other) == (Array(text.utf8) == Array(other.utf8)))
    }

    static func config(_ bytes: [UInt8]) {
        var configuration = PushMockConfiguration()
        try? configuration.load(contents: bytes, path: "/nonexistent/fuzz.json")
    }

    /// The Swift source reader (`PUT /api/v1/activity-types`, `--activity-types`): parsed, its
    /// types resolved and declared, on its own thread as the server reads it.
    static func swiftSource(_ bytes: [UInt8]) {
        _ = try? SwiftActivityTypes.read(sources: [(file: "Fuzz.swift", text: String(decoding: bytes, as: UTF8.self))])
    }
}

/// The server's state as the inspection router sees it: the router decodes the bodies (in the
/// configuration file's formats, also fuzzed by the `config` target), nothing is kept.
final class FuzzState: DeviceDirectory, FaultDirectory, ActivityBoard, ServerControl {
    func devices() -> [String: DeviceRecord] { [:] }
    func device(_ token: String) -> DeviceRecord? { nil }
    func setDevice(_ token: String, _ record: DeviceRecord) {}
    func removeDevice(_ token: String) -> Bool { false }
    func topics(of token: String) -> [String] { [] }
    func subscribedTokens() -> Set<String> { [] }
    func faults() -> [FaultRule] { [] }
    func addFault(_ rule: FaultRule) -> FaultRule { rule }
    func removeFault(id: String) -> Bool { false }
    func removeAllFaults() -> Int { 0 }
    func activities() -> [SimulatedActivity] { [] }
    func activity(_ key: String) -> SimulatedActivity? { nil }
    func channels() -> [BroadcastChannel] { [] }
    func state(of activity: SimulatedActivity) -> SimulatedActivity.State { .active }
    func shown(_ activity: SimulatedActivity) -> SimulatedActivity.Shown { activity.shown(at: PushInstant(millisecondsSinceEpoch: 0)) }
    func activityTypes() -> [String: ActivityTypeRegistry.Entry] { [:] }
    func declareActivityType(_ name: String, _ declaration: ActivityTypeDeclaration) {}
    func removeActivityType(_ name: String) -> Bool { false }
    func reset() async throws {}
    func metrics() async -> [UInt8] { [] }
}

/// A client that went away before the stream started.
final class ClosedSink: EventSink {
    func write(_ bytes: [UInt8]) {}
    func finish() {}
    func onClose(_ callback: @escaping @Sendable () -> Void) { callback() }
    var isClosed: Bool { true }
    var backlog: Int { 0 }
}

/// libFuzzer's callback, for the `main` that `-sanitize=fuzzer` links into a debug build (where
/// SwiftPM renames an executable's own entry point, so the `main` below is not the program's).
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    FuzzTargets.run(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

/// libFuzzer's driver, linked by `-sanitize=fuzzer`. In a release build this `main` is the
/// program's, and it hands over to libFuzzer with the same callback.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

@main
enum FuzzMain {
    static func main() {
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        let status = LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzOneInput(data, size) }
        exit(status)
    }
}
