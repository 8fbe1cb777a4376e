import CNGHTTP2
import PushMockBytes

/// One response's header fields as nghttp2 takes them (`nghttp2_nv` entries pointing into one
/// byte buffer), in memory a connection keeps from response to response. nghttp2 copies the
/// fields during `nghttp2_submit_response`, so the next response may reuse the memory at once.
///
/// The room is made once per response (``start(fields:bytes:)``), so the entries can point into
/// the buffer as they are added: arrays emptied and refilled per response cost about 700
/// instructions more (their generic `removeAll`, and uniqueness checks on every append).
final class ResponseHeaderBlock {
    private var bytes: UnsafeMutablePointer<UInt8>
    private var byteCapacity: Int
    private var used = 0
    private(set) var fields: UnsafeMutablePointer<nghttp2_nv>
    private var fieldCapacity: Int
    /// The fields added since the last ``start(fields:bytes:)``.
    private(set) var count = 0

    /// The most bytes a number's digits take (`Int.max` has 19).
    static let maxDigits = 19

    init(byteCapacity: Int = 512, fieldCapacity: Int = 8) {
        self.byteCapacity = max(byteCapacity, 1)
        self.fieldCapacity = max(fieldCapacity, 1)
        bytes = .allocate(capacity: self.byteCapacity)
        fields = .allocate(capacity: self.fieldCapacity)
    }

    deinit {
        bytes.deallocate()
        fields.deallocate()
    }

    /// Makes the block of a response: `:status`, `headers`, the generated id's field, and
    /// `content-length` if given.
    func set(status: Int, headers: HTTPHeaderList, generatedID: HTTPServerResponse.GeneratedID? = nil, contentLength: Int?) {
        // The fields are read in place: iterating the list copied (retained and released) each one.
        headers.fields.withUnsafeBufferPointer { fields in
            var size = ":status".utf8.count + Self.maxDigits
            for index in fields.indices {
                size += fields[index].name.utf8.count + fields[index].value.utf8.count
            }
            if contentLength != nil {
                size += "content-length".utf8.count + Self.maxDigits
            }
            if let generatedID {
                size += generatedID.nameText.utf8CodeUnitCount + 36
            }
            start(fields: fields.count + 3, bytes: size)
            add(":status", digitsOf: status)
            for index in fields.indices {
                add(fields[index].name, fields[index].value, neverIndex: fields[index].neverIndex)
            }
        }
        if let generatedID {
            add(generatedID)
        }
        if let contentLength {
            add("content-length", digitsOf: contentLength)
        }
    }

    /// Adds a field whose value is a UUID's text, written here.
    func add(_ id: HTTPServerResponse.GeneratedID) {
        let nameStart = used
        let name = id.nameText
        precondition(used + name.utf8CodeUnitCount + 36 <= byteCapacity, "no room made for the field")
        (bytes + used).initialize(from: name.utf8Start, count: name.utf8CodeUnitCount)
        used += name.utf8CodeUnitCount
        let valueStart = used
        used += ByteWriter.write(into: bytes + used, capacity: 36) { id.write(to: &$0) }
        entry(nameStart, valueStart, neverIndex: id.neverIndex)
    }

    /// Forgets the last block and makes room for `fieldCount` fields of `size` bytes in all
    /// (names and values; a number counts ``maxDigits``).
    func start(fields fieldCount: Int, bytes size: Int) {
        used = 0
        count = 0
        if size > byteCapacity {
            bytes.deallocate()
            byteCapacity = max(size, byteCapacity * 2)
            bytes = .allocate(capacity: byteCapacity)
        }
        if fieldCount > fieldCapacity {
            fields.deallocate()
            fieldCapacity = max(fieldCount, fieldCapacity * 2)
            fields = .allocate(capacity: fieldCapacity)
        }
    }

    /// Adds a field (within the room ``start(fields:bytes:)`` made).
    func add(_ name: String, _ value: String, neverIndex: Bool = false) {
        let nameStart = copy(name)
        let valueStart = copy(value)
        entry(nameStart, valueStart, neverIndex: neverIndex)
    }

    /// Adds a field whose value is a non-negative number's decimal digits (a negative one is
    /// written as 0): `String(Int)` goes through a protocol's `description` and builds a string
    /// only to be copied here.
    func add(_ name: StaticString, digitsOf number: Int) {
        let nameStart = used
        precondition(used + name.utf8CodeUnitCount + Self.maxDigits <= byteCapacity, "no room made for the field")
        (bytes + used).initialize(from: name.utf8Start, count: name.utf8CodeUnitCount)
        used += name.utf8CodeUnitCount
        let valueStart = used
        if number >= 100, number <= 999 {
            // A status: three digits, written without the general loops.
            bytes[used] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: number / 100)
            bytes[used + 1] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: number / 10 % 10)
            bytes[used + 2] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: number % 10)
            used += 3
            entry(nameStart, valueStart, neverIndex: false)
            return
        }
        var rest = max(number, 0)
        var digits = 1
        while rest >= 10 && digits < Self.maxDigits {
            digits += 1
            rest /= 10
        }
        rest = max(number, 0)
        for index in stride(from: used + digits - 1, through: used, by: -1) {
            bytes[index] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        }
        used += digits
        entry(nameStart, valueStart, neverIndex: false)
    }

    /// The field `index` as name, value and whether it is never indexed (for tests).
    func field(_ index: Int) -> (name: String, value: String, neverIndex: Bool) {
        precondition(index < count, "no such field")
        let entry = fields[index]
        return (
            String(decoding: UnsafeBufferPointer(start: entry.name, count: entry.namelen), as: UTF8.self),
            String(decoding: UnsafeBufferPointer(start: entry.value, count: entry.valuelen), as: UTF8.self),
            entry.flags & UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue) != 0
        )
    }

    /// Copies `text`'s UTF-8 to the buffer; where it starts.
    private func copy(_ text: String) -> Int {
        let start = used
        let size = text.utf8.count
        precondition(used + size <= byteCapacity, "no room made for the field")
        guard size > 0 else { return start }
        if text.utf8.withContiguousStorageIfAvailable({ (bytes + used).initialize(from: $0.baseAddress!, count: $0.count) }) == nil {
            var native = text
            native.withUTF8 { (bytes + used).initialize(from: $0.baseAddress!, count: $0.count) }
        }
        used += size
        return start
    }

    private func entry(_ nameStart: Int, _ valueStart: Int, neverIndex: Bool) {
        precondition(count < fieldCapacity, "no room made for the field")
        fields[count] = nghttp2_nv(
            name: bytes + nameStart,
            value: bytes + valueStart,
            namelen: valueStart - nameStart,
            valuelen: used - valueStart,
            flags: UInt8(neverIndex ? NGHTTP2_NV_FLAG_NO_INDEX.rawValue : NGHTTP2_NV_FLAG_NONE.rawValue)
        )
        count += 1
    }
}
