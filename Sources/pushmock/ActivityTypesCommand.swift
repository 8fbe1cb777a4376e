import ArgumentParser
import Foundation
import PushMockCore
import PushMockServer
import PushMockSwiftSource

/// `pushmock activity-types PATH`: the ActivityAttributes types `serve --activity-types PATH`
/// would declare, in the declaration form, and every warning; exits 1 when a warning was given
/// or nothing was found, so a project can be checked in CI.
struct ActivityTypesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "activity-types",
        abstract: "Print the ActivityAttributes types read from Swift source (a .swift file or a folder), and every warning.",
        discussion: """
            Prints one JSON object: {"types": {"Name": {"file", "line", "declaration"}}, "warnings": ["file:line: message"]}.
            Exits 1 when there is a warning or no type, 2 when a path cannot be read.
            """
    )

    @Argument(help: "A .swift file or a folder (searched recursively; .build, Pods and hidden folders are skipped).")
    var paths: [String]

    @Option(help: "The most .swift files read under one path (default 5000).")
    var maxFiles = SwiftActivityTypes.Budget().files

    @Option(help: "The most bytes of Swift source read under one path (default 33554432, 32 MiB).")
    var maxBytes = SwiftActivityTypes.Budget().bytes

    func run() throws {
        var types: [(key: String, value: JSONValue)] = []
        var warnings: [String] = []
        for path in paths {
            let read: SwiftActivityTypes
            do {
                read = try SwiftActivityTypes.read(path: path, budget: .init(files: maxFiles, bytes: maxBytes))
            } catch {
                FileHandle.standardError.write(
                    Data("pushmock activity-types: \(error)\n".replacingOccurrences(of: "--activity-types-max-", with: "--max-").utf8))
                throw ExitCode(2)
            }
            for found in read.types {
                types.append(
                    (
                        found.name,
                        .object([
                            ("file", .string(found.file)), ("line", .number(String(found.line))), ("declaration", found.declaration.source),
                        ])
                    ))
            }
            warnings += read.warnings.map(\.description)
        }
        let output = JSONValue.object([("types", .object(types)), ("warnings", .array(warnings.map(JSONValue.string)))])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .withoutEscapingSlashes]
        print(String(decoding: try encoder.encode(output), as: UTF8.self))
        if types.isEmpty {
            FileHandle.standardError.write(
                Data("pushmock activity-types: no type conforms to ActivityAttributes in \(paths.joined(separator: ", "))\n".utf8))
        }
        if !warnings.isEmpty || types.isEmpty { throw ExitCode(1) }
    }

    /// Reads `sources` into `configuration.activityTypes` (a type already declared by name keeps
    /// its declaration); prints each warning on standard error. Throws when a path cannot be read.
    static func declare(_ sources: [String], into configuration: inout PushMockConfiguration) throws {
        for path in sources {
            let read: SwiftActivityTypes
            do {
                read = try SwiftActivityTypes.read(
                    path: path, budget: .init(files: configuration.activityTypeSourceMaxFiles, bytes: configuration.activityTypeSourceMaxBytes))
            } catch {
                throw ValidationError("--activity-types: \(error)")
            }
            for warning in read.warnings {
                FileHandle.standardError.write(Data("warning: activity types: \(warning)\n".utf8))
            }
            for found in read.types where configuration.activityTypes[found.name] == nil {
                configuration.activityTypes[found.name] = found.declaration
            }
            let count = configuration.startingActivityTypes.count
            guard count <= configuration.maxActivityTypes else {
                throw ValidationError(
                    "--activity-types: \(count) activity types would be declared, the presets among them; PushMock holds at most \(configuration.maxActivityTypes) (--max-activity-types raises the bound)"
                )
            }
        }
    }
}
