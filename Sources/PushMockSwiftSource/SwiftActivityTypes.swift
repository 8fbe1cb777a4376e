import Foundation
public import PushMockCore
import PushMockHTTP

/// The `ActivityAttributes` types of an app, read from its Swift source: each type that conforms
/// (in its declaration or through an extension) is declared under its Swift name, with its stored
/// properties as the attributes, its `ContentState` as the content state, and every type they
/// reference, wherever in the files it is declared. Decoded as the synthesized `Decodable` does:
/// `CodingKeys` rename and leave out properties, a `let` with a default is not decoded, a `var`
/// with a default is still required unless optional, enums with raw values take those values, and
/// enums without them take Swift 5.5's `{"case": {"label": value}}` form.
public struct SwiftActivityTypes: Sendable {
    /// One `ActivityAttributes` type and where it was declared.
    public struct Found: Sendable {
        /// The name a push carries in `attributes-type`: the type's own name.
        public var name: String
        public var declaration: ActivityTypeDeclaration
        public var file: String
        public var line: Int
    }

    /// Something PushMock could not read as the device would: the field is then not checked (or
    /// the type not declared), and the user is told at start.
    public struct Warning: Sendable, Hashable, CustomStringConvertible {
        public var file: String
        public var line: Int
        public var message: String
        /// `file:line: message`, the file name's control bytes escaped (it is printed on a terminal).
        public var description: String { "\(SwiftSourceError.printable(file)):\(line): \(message)" }
    }

    public var types: [Found]
    public var warnings: [Warning]

    /// How much `read(path:budget:)` reads: `.swift` files, and bytes over all of them.
    public struct Budget: Sendable, Hashable {
        /// `.swift` files read (`--activity-types-max-files`).
        public var files: Int
        /// Bytes read over all files (`--activity-types-max-bytes`).
        public var bytes: Int
        /// Entries of a folder walked to find them (not configurable: a folder this large is not an
        /// app's source; name the widget's folder instead).
        public static let maximumEntriesWalked = 200_000

        public init(files: Int = 5_000, bytes: Int = 32 << 20) {
            self.files = files
            self.bytes = bytes
        }
    }

    /// The types in the `.swift` file at `path`, or in every `.swift` file under the folder at
    /// `path` (hidden folders and `.build` are skipped). Throws when the path cannot be read or
    /// holds more than `budget`.
    public static func read(path: String, budget: Budget = Budget()) throws -> SwiftActivityTypes {
        let shown = SwiftSourceError.printable(path)
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw SwiftSourceError("\(shown): no such file or folder")
        }
        var files: [String] = []
        if isFolder.boolValue {
            let root = URL(fileURLWithPath: path)
            let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isDirectoryKey], options: [.skipsHiddenFiles])
            var walked = 0
            while let url = walker?.nextObject() as? URL {
                walked += 1
                guard walked <= Budget.maximumEntriesWalked else {
                    throw SwiftSourceError(
                        "\(shown): more than \(Budget.maximumEntriesWalked) entries in the folder; PushMock walks no further (name the folder of the app's or widget's source)"
                    )
                }
                if url.lastPathComponent == ".build" || url.lastPathComponent == "DerivedData" || url.lastPathComponent == "Pods" {
                    walker?.skipDescendants()
                } else if url.pathExtension == "swift" {
                    files.append(url.path)
                    guard files.count <= budget.files else {
                        throw SwiftSourceError(
                            "\(shown): more than \(budget.files) .swift files; PushMock reads no more (--activity-types-max-files raises the bound)")
                    }
                }
            }
            files.sort()
        } else {
            guard path.hasSuffix(".swift") else { throw SwiftSourceError("\(shown): not a .swift file or a folder") }
            files = [path]
        }
        var sources: [(file: String, text: String)] = []
        var bytes = 0
        for file in files {
            let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
            guard bytes + size <= budget.bytes else {
                throw SwiftSourceError(
                    "\(SwiftSourceError.printable(file)): more than \(budget.bytes) bytes of Swift source\(files.count > 1 ? " in all" : ""); PushMock reads no more (--activity-types-max-bytes raises the bound)"
                )
            }
            guard let data = FileManager.default.contents(atPath: file) else {
                throw SwiftSourceError("\(SwiftSourceError.printable(file)): cannot be read")
            }
            bytes += data.count
            guard bytes <= budget.bytes else {
                throw SwiftSourceError(
                    "\(SwiftSourceError.printable(file)): more than \(budget.bytes) bytes of Swift source; PushMock reads no more (--activity-types-max-bytes raises the bound)"
                )
            }
            sources.append((file, String(decoding: data, as: UTF8.self)))
        }
        return try read(sources: sources)
    }

    /// The types declared in `sources` (a file name, for messages, and its text), read on a
    /// thread of their own (``SwiftSourceThread``). Throws for a source nested too deeply or too
    /// costly to resolve (``SwiftSourceLimits``).
    public static func read(sources: [(file: String, text: String)]) throws -> SwiftActivityTypes {
        try SwiftSourceThread.runBlocking { () throws(SwiftSourceError) in try readHere(sources: sources) }
    }

    /// ``read(sources:)`` on the calling thread, which must have a stack of
    /// ``SwiftSourceThread/stackSize``.
    static func readHere(sources: [(file: String, text: String)]) throws(SwiftSourceError) -> SwiftActivityTypes {
        var index = SwiftTypeIndex()
        for source in sources { try index.add(source: source.text, file: source.file) }
        index.finish()
        var reader = DeclarationBuilder(index: index)
        var found: [Found] = []
        let conformers = index.types.values.filter { type in
            type.kind != .alias && type.inherited.contains { $0 == "ActivityAttributes" || $0 == "ActivityKit.ActivityAttributes" }
        }.sorted { ($0.file, $0.line) < ($1.file, $1.line) }
        var seen: [String: SwiftTypeIndex.TypeInfo] = [:]
        for type in conformers {
            let name = String(type.name.split(separator: ".").last ?? "")
            if let earlier = seen[name] {
                reader.warn(
                    type,
                    "\(type.name) has the same name as \(earlier.name) (\(earlier.file):\(earlier.line)), which is declared; a push names only one")
                continue
            }
            guard !type.generic else {
                reader.warn(type, "\(type.name) is generic: PushMock cannot know which type a push stands for, so it is not declared")
                continue
            }
            seen[name] = type
            if var declaration = reader.declaration(for: type) {
                declaration.origin = "\(type.file):\(type.line)"
                found.append(Found(name: name, declaration: declaration, file: type.file, line: type.line))
            }
        }
        if reader.steps > SwiftSourceLimits.maximumSteps {
            throw SwiftSourceError(
                "resolving the types took more than \(SwiftSourceLimits.maximumSteps) steps (aliases and nested types that multiply); PushMock reads no further"
            )
        }
        for duplicate in index.duplicates {
            reader.warn(file: duplicate.file, line: duplicate.line, "\(duplicate.name) is declared twice; the first declaration is used")
        }
        var warnings = reader.warnings
        if reader.warningsLeftOut > 0 {
            warnings.append(
                Warning(file: warnings.last?.file ?? "", line: warnings.last?.line ?? 0, message: "and \(reader.warningsLeftOut) more warnings"))
        }
        return SwiftActivityTypes(types: found, warnings: warnings)
    }
}

/// Why a path cannot be read.
extension SwiftActivityTypes {
    /// Reads one Swift source text named `file` (for `PUT /api/v1/activity-types` with
    /// `content-type: text/x-swift`): each type by name, each warning as `file:line: message`.
    /// The read runs on a thread of its own, one at a time, never on the threads other requests
    /// need; it throws ``SwiftSourceError`` for a source PushMock will not read, and
    /// `SwiftSourceReaderBusy` when ``SwiftSourceThread/maximumWaiting`` reads already wait.
    public static let reader: SwiftSourceReader = { file, text in
        let read = try await SwiftSourceThread.run { () throws(SwiftSourceError) in try readHere(sources: [(file: file, text: text)]) }
        return SwiftSourceReading(types: read.types.map { ($0.name, $0.declaration) }, warnings: read.warnings.map(\.description))
    }
}
