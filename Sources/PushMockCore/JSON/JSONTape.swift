public import PushMockBytes

/// A JSON text parsed once into a flat list of values in document order (a "tape"), so that walking
/// objects and arrays never parses a byte twice. Each entry knows where its subtree ends; an
/// object's children are alternately a key (a string entry) and a value.
///
/// ```swift
/// guard let tape = JSONTape(JSONScanner(bytes)) else { /* not valid JSON */ }
/// tape.forEachMember(of: tape.root) { key, value in … }
/// ```
public struct JSONTape {
    /// One value on the tape.
    public struct Entry: Sendable {
        /// The value (its byte range and kind).
        public var value: JSONScanner.Value
        /// The index after this value's subtree (its next sibling).
        public var end: Int
    }

    /// The scanner over the bytes (string and number decoding).
    public let scanner: JSONScanner
    /// The entries, root first.
    public let entries: ScratchList<Entry>

    /// Parses the scanner's bytes strictly (RFC 8259); `nil` if they are not one JSON value.
    public init?(_ scanner: JSONScanner) {
        self.init(scanner, storage: ScratchList(capacity: 64))
    }

    /// The same, building the entries in `storage` (emptied first, its memory kept): a caller
    /// that parses one body after another hands the same list to each. A tape built in a list is
    /// valid until the list builds the next one.
    public init?(_ scanner: JSONScanner, storage: ScratchList<Entry>) {
        self.scanner = scanner
        self.entries = storage
        entries.removeAll()
        var index = scanner.skipSpace(0)
        guard append(&index) else { return nil }
        index = scanner.skipSpace(index)
        guard index == scanner.bytes.count else { return nil }
    }

    /// A tape of nothing, over no bytes, in `storage`: what a walker kept between bodies holds,
    /// so that it keeps no view of a body that is gone.
    init(emptyIn storage: ScratchList<Entry>) {
        scanner = JSONScanner(.empty)
        entries = storage
        entries.removeAll()
    }

    /// The root entry's index.
    public var root: Int { 0 }

    /// The value at `index`.
    public func value(_ index: Int) -> JSONScanner.Value { entries[index].value }

    /// The kind at `index`.
    public func kind(_ index: Int) -> JSONScanner.Kind { entries[index].value.kind }

    /// Calls `body` with each member's key index and value index, in document order.
    public func forEachMember(of object: Int, _ body: (_ key: Int, _ value: Int) -> Void) {
        guard entries[object].value.kind == .object else { return }
        var child = object + 1
        let end = entries[object].end
        while child < end {
            let value = child + 1
            body(child, value)
            child = entries[value].end
        }
    }

    /// The element indices of an array.
    public func forEachElement(of array: Int, _ body: (_ position: Int, _ element: Int) -> Void) {
        guard entries[array].value.kind == .array else { return }
        var child = array + 1
        var position = 0
        while child < entries[array].end {
            body(position, child)
            child = entries[child].end
            position += 1
        }
    }

    /// The number of members of an object (0 for anything else).
    public func memberCount(of object: Int) -> Int {
        var count = 0
        forEachMember(of: object) { _, _ in count += 1 }
        return count
    }

    /// Whether the key entry at `key` spells `name` (compared on bytes; escaped keys decoded).
    public func key(_ key: Int, is name: String) -> Bool {
        let range = entries[key].value.range
        let content = (range.lowerBound + 1)..<(range.upperBound - 1)
        return name.withUTF8View { expected in
            guard content.count == expected.count else {
                // An escape is longer than what it spells, so a key shorter than the name never is it.
                return content.count > expected.count && scanner.bytes.view(content).contains(byte: UInt8(ascii: "\\"))
                    && scanner.keys(ofRange: content) == expected.string
            }
            for offset in 0..<expected.count where scanner.bytes[content.lowerBound + offset] != expected[offset] {
                return false
            }
            return true
        }
    }

    /// The decoded key text.
    public func keyText(_ key: Int) -> String {
        let range = entries[key].value.range
        return scanner.keys(ofRange: (range.lowerBound + 1)..<(range.upperBound - 1))
    }

    /// The member `name` of an object (the last one when repeated), skipping nulls.
    public func member(_ name: String, in object: Int) -> Int? {
        var found: Int?
        forEachMember(of: object) { key, value in
            if self.key(key, is: name) { found = entries[value].value.kind == .null ? nil : value }
        }
        return found
    }

    /// The decoded text of a string entry.
    public func string(_ index: Int) -> String? { scanner.string(at: entries[index].value) }

    /// Whether the entry at `index` is a string written as exactly the UTF-8 bytes of `text`, as
    /// they stand between its quotes. (When `text` has no backslash, that is the same as
    /// decoding to it, without making a string.)
    public func isString(_ index: Int, writtenAs text: String) -> Bool {
        let value = entries[index].value
        guard value.kind == .string else { return false }
        let content = scanner.bytes.view((value.range.lowerBound + 1)..<(value.range.upperBound - 1))
        return text.withUTF8View { content.equalsLong($0) }
    }

    /// An integer entry.
    public func int64(_ index: Int) -> Int64? { scanner.int64(at: entries[index].value) }

    /// A boolean entry.
    public func bool(_ index: Int) -> Bool? { scanner.bool(at: entries[index].value) }

    /// The raw text of an entry.
    public func text(_ index: Int) -> String { scanner.text(of: entries[index].value) }

    // MARK: Building

    /// Builds the entries of the value at `index` in one loop, without recursion (as
    /// ``JSONScanner/validate()`` checks): an open container's `end` holds its parent's index
    /// (-1 for the root) until it closes. The nesting limit is the parser's: a value sits inside at
    /// most ``JSONScanner/maxDepth`` containers.
    private func append(_ index: inout Int) -> Bool {
        let bytes = scanner.bytes
        let count = bytes.count
        // The innermost open container, and how many are open.
        var open = -1
        var depth = 0
        while true {
            // A value at `index` (inside an object, its key and colon are read).
            guard index < count else { return false }
            let start = index
            switch bytes[index] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let isObject = bytes[index] == UInt8(ascii: "{")
                let me = entries.count
                entries.append(Entry(value: .init(range: start..<start, kind: isObject ? .object : .array), end: open))
                index = scanner.skipSpace(index + 1)
                guard index < count else { return false }
                if bytes[index] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    index += 1  // empty: a value like any other
                    entries[me].value.range = start..<index
                    entries[me].end = me + 1
                } else {
                    // Its first member or element would sit one level deeper.
                    guard depth < JSONScanner.maxDepth else { return false }
                    open = me
                    depth += 1
                    if isObject, !appendKey(&index) { return false }
                    continue
                }
            case UInt8(ascii: "\""):
                guard let value = scanner.parseString(&index) else { return false }
                entries.append(Entry(value: value, end: entries.count + 1))
            case UInt8(ascii: "t"):
                guard let value = scanner.literal("true", &index, .bool) else { return false }
                entries.append(Entry(value: value, end: entries.count + 1))
            case UInt8(ascii: "f"):
                guard let value = scanner.literal("false", &index, .bool) else { return false }
                entries.append(Entry(value: value, end: entries.count + 1))
            case UInt8(ascii: "n"):
                guard let value = scanner.literal("null", &index, .null) else { return false }
                entries.append(Entry(value: value, end: entries.count + 1))
            default:
                guard let value = scanner.parseNumber(&index) else { return false }
                entries.append(Entry(value: value, end: entries.count + 1))
            }
            // After a value: the end of the root, the next member or element, or a close.
            while true {
                guard open >= 0 else { return true }
                index = scanner.skipSpace(index)
                guard index < count else { return false }
                let byte = bytes[index]
                let inObject = entries[open].value.kind == .object
                if byte == UInt8(ascii: ",") {
                    index = scanner.skipSpace(index + 1)
                    if inObject, !appendKey(&index) { return false }
                    break
                }
                guard byte == (inObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else { return false }
                index += 1
                let parent = entries[open].end
                entries[open].value.range = entries[open].value.range.lowerBound..<index
                entries[open].end = entries.count
                open = parent
                depth -= 1
            }
        }
    }

    /// A member's key (its entry appended), the colon and the white space around it: `index` is
    /// then at the value.
    @inline(__always)
    private func appendKey(_ index: inout Int) -> Bool {
        let bytes = scanner.bytes
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let key = scanner.parseString(&index) else { return false }
        entries.append(Entry(value: key, end: entries.count + 1))
        index = scanner.skipSpace(index)
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return false }
        index = scanner.skipSpace(index + 1)
        return true
    }
}
