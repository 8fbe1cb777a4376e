import Crypto
import Foundation
import Testing

@testable import PushMockCore

/// Every FCM fixture, accepted or refused, mutated member by member (each value swapped for values of every
/// JSON type and of FCM's string shapes, each key renamed, duplicated, nulled or dropped), checked
/// against answers recorded from the validator (`Fixtures/fcm-golden/answers.txt`): the status,
/// Google's message, the BadRequest field and FcmError code of a refusal, or everything an accepted
/// message yields. The answers are grouped by fixture and member and kept as a SHA-256 of each
/// group's lines, so a change names the member whose answers changed.
///
/// Re-record (only when a change in the answers is intended and reviewed):
/// `PUSHMOCK_RECORD_FCM_GOLDEN=$PWD/Tests/PushMockCoreTests/Fixtures/fcm-golden/answers.txt swift test --filter FCMMutationGoldenTests`
@Suite("FCM validation answers under mutation")
struct FCMMutationGoldenTests {
    /// Values every member is swapped for.
    static let replacements: [JSONValue] = [
        .null, .number("7"), .number("2.5"), .number("3000000000"), .number("-1"), .string("x"), .string(""), .bool(true), .bool(false),
        .object([]), .array([]), .array([.string("a")]), .array([.number("7")]), .object([("k", .string("v"))]), .object([("k", .number("1"))]),
        .string("3.5s"), .string("99999999s"), .string("2026-01-01T00:00:00Z"), .string("HIGH"), .string("#a1b2c3"), .string("http://x"),
        .string("https://x"), .string("10"), .string("5"), .string("7"), .string("alert"), .string("liveactivity"), .string("google.x"),
        .string(String(repeating: "a", count: 65)),
    ]

    /// The mutated bodies of one object member, in a fixed order.
    static func mutations(of root: JSONValue, at path: [Int]) -> [JSONValue] {
        var out: [JSONValue] = []
        for value in replacements {
            out.append(edit(root, at: path) { members, index in members[index].value = value })
        }
        out.append(edit(root, at: path) { members, index in members.remove(at: index) })
        out.append(edit(root, at: path) { members, index in members[index].key = FCMSchema.camel(members[index].key) })
        out.append(edit(root, at: path) { members, index in members[index].key = members[index].key.uppercased() })
        out.append(edit(root, at: path) { members, index in members[index].key += "X" })
        out.append(edit(root, at: path) { members, index in members.insert((members[index].key, .null), at: index + 1) })
        out.append(edit(root, at: path) { members, index in members.insert((members[index].key, .string("x")), at: index) })
        out.append(edit(root, at: path) { members, index in members.insert((members[index].key, .string("x")), at: index + 1) })
        return out
    }

    /// `root` with the object member at `path` (member positions from the root) changed by `change`.
    static func edit(_ root: JSONValue, at path: [Int], _ change: (inout [(key: String, value: JSONValue)], Int) -> Void) -> JSONValue {
        guard let first = path.first else { return root }
        switch root {
        case .object(var members):
            if path.count == 1 {
                change(&members, first)
            } else {
                members[first].value = edit(members[first].value, at: Array(path.dropFirst()), change)
            }
            return .object(members)
        case .array(var elements):
            elements[first] = edit(elements[first], at: Array(path.dropFirst()), change)
            return .array(elements)
        default:
            return root
        }
    }

    /// The paths of every object member under `value` (arrays are walked into, their elements not mutated).
    static func memberPaths(_ value: JSONValue, prefix: [Int] = [], names: [String] = []) -> [(path: [Int], name: String)] {
        switch value {
        case .object(let members):
            return members.enumerated().flatMap { index, member in
                [(prefix + [index], (names + [member.key]).joined(separator: "."))]
                    + memberPaths(member.value, prefix: prefix + [index], names: names + [member.key])
            }
        case .array(let elements):
            return elements.enumerated().flatMap { index, element in
                memberPaths(element, prefix: prefix + [index], names: names + ["[\(index)]"])
            }
        default:
            return []
        }
    }

    /// Compact JSON text, duplicates and member order kept.
    static func text(_ value: JSONValue) -> String {
        switch value {
        case .object(let members): "{" + members.map { quoted($0.key) + ":" + text($0.value) }.joined(separator: ",") + "}"
        case .array(let elements): "[" + elements.map(text).joined(separator: ",") + "]"
        case .string(let string): quoted(string)
        case .number(let number): number
        case .bool(let flag): flag ? "true" : "false"
        case .null: "null"
        }
    }

    static func quoted(_ string: String) -> String {
        "\"" + string.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// One line that tells an answer apart from any other.
    static func answer(_ body: [UInt8], lenient: Bool, scratch: FCMMessageValidator.Scratch? = nil) -> String {
        let validator = FCMMessageValidator(strictRegistrationTokens: !lenient)
        let now = PushInstant(secondsSinceEpoch: 1_767_225_600)
        do throws(GoogleError) {
            let result = if let scratch { try validator.validate(body, now: now, scratch: scratch) } else { try validator.validate(body, now: now) }
            return "200 \(String(reflecting: result))"
        } catch {
            let fields = error.details.compactMap { detail -> String? in
                if case .badRequest(let violations) = detail { return violations.first?.field }
                return nil
            }
            return
                "\(error.code) \(error.status) \(error.message) field=\(fields) code=\(error.fcmErrorCode?.rawValue ?? "-") reason=\(error.recordedReason) \(error.json)"
        }
    }

    /// `fixture member-path sha256` for every mutated member of every fixture (each body validated
    /// with `scratch` when one is given, else with fresh memory).
    static func groups(scratch: FCMMessageValidator.Scratch? = nil) throws -> [String] {
        let directory = Bundle.module.url(forResource: "Fixtures/fcm", withExtension: nil)!
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }.sorted()
        var lines: [String] = []
        for name in names {
            let file = Array(try Data(contentsOf: directory.appendingPathComponent(name)))
            let fixture = try #require(JSONValue.parse(file))
            guard case .object? = fixture["body"] else { continue }  // RAW bodies stay as written
            let body = try #require(fixture["body"])
            let lenient = fixture["options"]?["lenient"] == .bool(true)
            for (path, memberName) in memberPaths(body) {
                let answers = mutations(of: body, at: path).map { answer(Array(text($0).utf8), lenient: lenient, scratch: scratch) }
                let digest = SHA256.hash(data: Array(answers.joined(separator: "\n").utf8)).map { String(format: "%02x", $0) }.joined()
                lines.append("\(name) \(memberName) \(digest)")
            }
        }
        return lines
    }

    @Test("every mutated member of every accepted fixture gets the recorded answers")
    func answersUnchanged() throws {
        let lines = try Self.groups()
        if let record = ProcessInfo.processInfo.environment["PUSHMOCK_RECORD_FCM_GOLDEN"] {
            try (lines.joined(separator: "\n") + "\n").write(toFile: record, atomically: true, encoding: .utf8)
        }
        let url = try #require(Bundle.module.url(forResource: "Fixtures/fcm-golden/answers", withExtension: "txt"))
        let recorded = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.count > 250, "the mutations reach every member (\(lines.count) groups)")
        #expect(lines.count == recorded.count)
        for (line, expected) in zip(lines, recorded) where line != expected {
            Issue.record("answers changed: \(line) (recorded: \(expected))")
        }
    }

    @Test("one scratch reused for every mutated body, one after another, gives the answers fresh memory gives")
    func scratchReused() throws {
        let scratch = FCMMessageValidator.Scratch()
        let reused = try Self.groups(scratch: scratch)
        let fresh = try Self.groups()
        #expect(reused.count == fresh.count)
        for (line, expected) in zip(reused, fresh) where line != expected {
            Issue.record("with a reused scratch: \(line) (fresh: \(expected))")
        }
    }
}
