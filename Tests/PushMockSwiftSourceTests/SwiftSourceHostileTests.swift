import Foundation
import PushMockCore
import PushMockInspection
import PushMockServer
import PushMockSwiftSource
import PushMockTesting
import Testing

/// Swift source written to hurt the reader: alias cycles, nesting past every bound, and types whose
/// resolution would multiply. Each is refused or read with a warning, never a crash or a hang.
@Suite("Swift source a reader must survive")
struct SwiftSourceHostileTests {
    /// A file with an `ActivityAttributes` type whose content state has one field of type `field`,
    /// after `before`.
    static func file(field: String, before: String = "", after: String = "") -> String {
        before + "\nimport ActivityKit\nstruct A: ActivityAttributes {\n  struct ContentState: Codable, Hashable { var f: \(field) }\n}\n" + after
    }

    static func read(_ text: String) throws -> SwiftActivityTypes {
        try SwiftActivityTypes.read(sources: [(file: "Hostile.swift", text: text)])
    }

    @Test(
        "an alias that stands for itself, directly, through another, or inside an array, is read as unchecked with a warning",
        arguments: [
            ("typealias Loop = Loop", "Loop"), ("typealias P = Q\ntypealias Q = P", "P"), ("typealias L = [L]", "L"),
            ("typealias D = [String: D]", "D"), ("typealias O = Optional<O>", "O"),
        ])
    func aliasCycles(alias: String, field: String) throws {
        let read = try Self.read(Self.file(field: field, before: alias))
        #expect(read.types.map(\.name) == ["A"])
        #expect(read.warnings.contains { $0.message.contains("stands for itself") }, "\(read.warnings)")
    }

    @Test(
        "nesting past the bounds is refused before parsing, naming the line and the bound",
        arguments: [
            ("[", 100_000, "brackets"), ("[", 201, "brackets"), ("(", 201, "brackets"), ("{", 201, "brackets"),
            ("Array<", 50_000, "generic arguments"), ("#if A\n", 20_000, "#if"), ("\"\\(", 30_000, "brackets"),
        ] as [(String, Int, String)])
    func deepNesting(open: String, depth: Int, named: String) throws {
        let close: String =
            switch open {
            case "[": "]"
            case "(": ")"
            case "{": "}"
            case "Array<": ">"
            case "#if A\n": "#endif\n"
            default: ")\""
            }
        let nested = String(repeating: open, count: depth) + "1" + String(repeating: close, count: depth)
        let error = #expect(throws: SwiftSourceError.self) { try Self.read(Self.file(field: "Int", after: "let x = " + nested + "\n")) }
        let text = error?.description ?? ""
        #expect(text.hasPrefix("Hostile.swift:"), "\(text)")
        #expect(text.contains(named) && text.contains("no deeper"), "\(text)")
    }

    @Test("a chain with no brackets (Int??? 200,000 times) is refused by the type's depth")
    func deepTree() throws {
        let error = #expect(throws: SwiftSourceError.self) { try Self.read(Self.file(field: "Int" + String(repeating: "?", count: 200_000))) }
        #expect(error?.description.contains("more than \(SwiftSourceLimits.maximumTreeDepth) levels deep") == true, "\(String(describing: error))")
    }

    @Test("many nested square brackets are read in one pass: each token is looked at once, however deep")
    func squareBrackets() throws {
        let site = String(repeating: "[(", count: 30) + "1" + String(repeating: ")]", count: 30)
        let lines = (0..<2_000).map { "let y\($0) = \(site)" }.joined(separator: "\n")
        let read = try Self.read(Self.file(field: String(repeating: "[", count: 12) + "Int" + String(repeating: "]", count: 12), after: lines))
        #expect(read.types.map(\.name) == ["A"])
        #expect(read.warnings.isEmpty, "\(read.warnings)")
        let field = try #require(read.types.first?.declaration.contentState.first)
        #expect("\(field.type)" == String(repeating: "[", count: 12) + "Int" + String(repeating: "]", count: 12))
    }

    @Test("nesting within the bounds is read: arrays 8 deep, 150 parentheses, 150 #if blocks, 150 interpolations")
    func nestingWithinBounds() throws {
        let read = try Self.read(
            Self.file(
                field: String(repeating: "[", count: 8) + "Int" + String(repeating: "]", count: 8),
                after: "let p = " + String(repeating: "(", count: 150) + "1" + String(repeating: ")", count: 150) + "\n"))
        #expect(read.types.map(\.name) == ["A"])
        #expect(read.warnings.isEmpty, "\(read.warnings)")
        let conditions = try Self.read(
            String(repeating: "#if canImport(ActivityKit)\n", count: 150) + Self.file(field: "Int") + String(repeating: "#endif\n", count: 150))
        #expect(conditions.types.map(\.name) == ["A"])
        var interpolation = #""x""#
        for _ in 0..<150 { interpolation = #""\(\#(interpolation))""# }
        #expect(try Self.read(Self.file(field: "Int", after: "let s = \(interpolation)\n")).types.map(\.name) == ["A"])
    }

    @Test("aliases of aliases that double at each level (60 levels: 2^60 uses) are each read once")
    func doublingAliases() throws {
        var aliases = ["typealias T0 = String"]
        for level in 1...60 { aliases.append("typealias T\(level) = [T\(level - 1): T\(level - 1)]") }
        let read = try Self.read(Self.file(field: "T60", before: aliases.joined(separator: "\n")))
        #expect(read.types.map(\.name) == ["A"])
        #expect(read.warnings.contains { $0.message.contains("is not a JSON object") }, "\(read.warnings)")
    }

    @Test("a file with tens of thousands of warnings keeps the first 200 and counts the rest")
    func manyWarnings() throws {
        let fields = (0..<5_000).map { "var f\($0): Missing\($0)" }.joined(separator: "\n")
        let text = "import ActivityKit\nstruct A: ActivityAttributes {\n  struct ContentState: Codable, Hashable {\n\(fields)\n}\n}\n"
        let read = try Self.read(text)
        #expect(read.warnings.count == SwiftSourceLimits.maximumWarnings + 1)
        #expect(
            read.warnings.last?.message == "and \(5_000 - SwiftSourceLimits.maximumWarnings) more warnings",
            "\(String(describing: read.warnings.last))")
    }

    @Test("a folder past its budget of files or bytes is refused, naming the bound and its flag; file names are printed with control bytes escaped")
    func folderBudget() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pushmock-budget-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let hostile = "Widget\u{1B}]0;owned\u{07}.swift"
        for (index, name) in ["A.swift", "B.swift", hostile].enumerated() {
            try Data(Self.file(field: "Missing\(index)").replacingOccurrences(of: "struct A:", with: "struct T\(index):").utf8)
                .write(to: folder.appendingPathComponent(name))
        }
        let read = try SwiftActivityTypes.read(path: folder.path)
        #expect(read.types.count == 3)
        let printed = read.warnings.map(\.description).joined(separator: "\n")
        #expect(!printed.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "\(printed.debugDescription)")
        #expect(printed.contains("Widget\\x1B]0;owned\\x07.swift:"), "\(printed)")

        #expect {
            try SwiftActivityTypes.read(path: folder.path, budget: .init(files: 2))
        } throws: { error in
            "\(error)".contains("more than 2 .swift files") && "\(error)".contains("--activity-types-max-files")
        }
        let size = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("A.swift").path)[.size] as! Int
        #expect(throws: Never.self) { try SwiftActivityTypes.read(path: folder.path, budget: .init(bytes: size * 3)) }
        #expect {
            try SwiftActivityTypes.read(path: folder.path, budget: .init(bytes: size * 2))
        } throws: { error in
            "\(error)".contains("more than \(size * 2) bytes") && "\(error)".contains("--activity-types-max-bytes")
        }
    }

    @Test("the registry holds at most --max-activity-types: a read that would pass it declares nothing (409); replacing a type still works")
    func registryCap() async throws {
        var configuration = PushMockConfiguration.testing()
        configuration.swiftSourceReader = SwiftActivityTypes.reader
        configuration.activityTypePresets = false
        configuration.maxActivityTypes = 2
        try await withPushMockServer(configuration) { server in
            func source(_ names: [String]) -> [UInt8] {
                Array(
                    ("import ActivityKit\n"
                        + names.map { "struct \($0): ActivityAttributes {\n  struct ContentState: Codable, Hashable { var n: Int }\n}\n" }.joined())
                        .utf8)
            }
            let three = await SwiftSourceUploadTests.call(
                server, "PUT", "/api/v1/activity-types", contentType: "text/x-swift", body: source(["A", "B", "C"]))
            #expect(three.status == 409, "\(three.text)")
            #expect(three.text.contains("at most 2 activity types (--max-activity-types)"), "\(three.text)")
            #expect(server.activityTypes.all.isEmpty, "nothing was declared")
            let two = await SwiftSourceUploadTests.call(
                server, "PUT", "/api/v1/activity-types", contentType: "text/x-swift", body: source(["A", "B"]))
            #expect(two.status == 200, "\(two.text)")
            let json = Array(#"{"contentState":{"n":"Int"}}"#.utf8)
            let another = await SwiftSourceUploadTests.call(server, "PUT", "/api/v1/activity-types/C", contentType: "application/json", body: json)
            #expect(another.status == 409, "\(another.text)")
            let replaced = await SwiftSourceUploadTests.call(server, "PUT", "/api/v1/activity-types/A", contentType: "application/json", body: json)
            #expect(replaced.status == 200, "\(replaced.text)")
            #expect(Set(server.activityTypes.all.keys) == ["A", "B"])
        }
    }

    @Test("over the API: a deep source gets 400 naming the bound, and the server goes on answering")
    func refusedOverTheAPI() async throws {
        var configuration = PushMockConfiguration.testing()
        configuration.swiftSourceReader = SwiftActivityTypes.reader
        try await withPushMockServer(configuration) { server in
            let deep = Self.file(field: String(repeating: "[", count: 100_000) + "Int" + String(repeating: "]", count: 100_000))
            let refused = await SwiftSourceUploadTests.call(
                server, "PUT", "/api/v1/activity-types", contentType: "text/x-swift", body: Array(deep.utf8))
            #expect(refused.status == 400)
            #expect(refused.text.contains("brackets, parentheses, braces and string interpolations nest more than"), "\(refused.text)")
            let cycle = Self.file(field: "Loop", before: "typealias Loop = Loop")
            let read = await SwiftSourceUploadTests.call(
                server, "PUT", "/api/v1/activity-types", contentType: "text/x-swift", body: Array(cycle.utf8))
            #expect(read.status == 200, "\(read.text)")
            #expect(read.text.contains("stands for itself"), "\(read.text)")
            let live = await SwiftSourceUploadTests.call(server, "GET", "/livez", contentType: nil, body: [])
            #expect(live.status == 200)
        }
    }
}
