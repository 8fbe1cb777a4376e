import PushMockBytes
import Testing

@Suite("ByteView and OwnBytes: reads stay in bounds, comparisons are exact")
struct ByteViewTests {
    @Test("equals, hasPrefix and equalsIgnoringCase against static strings, at every length")
    func comparisons() {
        Array("apns-priority".utf8).withByteView { view in
            #expect(view.equals("apns-priority"))
            #expect(!view.equals("apns-priorit"))
            #expect(!view.equals("apns-priorityx"))
            #expect(view.hasPrefix("apns-"))
            #expect(view.hasPrefix(""))
            #expect(!view.hasPrefix("apns-priority-"))
            #expect(!view.equalsIgnoringCase("APNS-PRIORITY"), "the expected text is lowercase")
        }
        Array("APNS-Priority".utf8).withByteView { view in
            #expect(view.equalsIgnoringCase("apns-priority"))
            #expect(!view.equals("apns-priority"))
        }
        Array("[{@`".utf8).withByteView { view in
            #expect(!view.equalsIgnoringCase("{[`@"), "only A-Z fold onto a-z")
        }
    }

    @Test("equals and equalsLong: equal bytes at every length up to 200, a difference at every offset, and other lengths")
    func viewComparisons() {
        for length in 0...200 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            bytes.withByteView { view in
                Array(bytes).withByteView { same in
                    #expect(view.equals(same) && view.equalsLong(same), "length \(length): equal")
                }
                for offset in 0..<length {
                    var changed = bytes
                    changed[offset] ^= 0x01
                    changed.withByteView { other in
                        #expect(!view.equals(other) && !view.equalsLong(other), "length \(length): a difference at \(offset)")
                    }
                }
                (bytes + [0]).withByteView { longer in
                    #expect(!view.equals(longer) && !view.equalsLong(longer), "length \(length): a longer view")
                }
            }
        }
    }

    @Test("hasPrefix and hasBytePrefix find a mismatch in the eight-byte words and in the tail")
    func prefixes() {
        let path = "/v1/projects/demo/messages:send"
        Array(path.utf8).withByteView { view in
            #expect(view.hasPrefix("/v1/projects/"))
            #expect(view.hasPrefix("/v1/projects/demo/messages:send"))
            #expect(!view.hasPrefix("/v1/projects/demo/messages:send?"), "longer than the bytes")
            #expect(!view.hasPrefix("/v2/projects/"), "a mismatch in the first word")
            #expect(!view.hasPrefix("/v1/projekts/"), "a mismatch past the first word")
            #expect(!view.hasPrefix("/v1/projects-"), "a mismatch in the last byte")
        }
        #expect(path.hasBytePrefix("/v1/projects/"))
        #expect(path.hasBytePrefix(""))
        #expect(!path.hasBytePrefix("/3/"))
        #expect("/3/device/ab".hasBytePrefix("/3/"))
        #expect(!"/3".hasBytePrefix("/3/"))
        #expect(!"e\u{301}x".hasBytePrefix("é"), "bytes, not canonical equivalence: U+00E9 is not e and U+0301")
    }

    @Test("a string's head word is its first four UTF-8 bytes, the first lowest, zero for those it lacks")
    func headWord() {
        #expect("".utf8HeadWord == 0)
        #expect("/".utf8HeadWord == 0x2F)
        #expect("/3/".utf8HeadWord == 0x002F_332F)
        #expect("/3/device/abc".utf8HeadWord == 0x642F_332F)
        #expect("/v1/projects".utf8HeadWord == 0x2F31_762F)
        #expect("/é/x".utf8HeadWord == 0x2FA9_C32F, "bytes, not characters")
    }

    @Test("a view's head word is its first eight bytes, the first lowest, zero for those it lacks, at every length and offset")
    func viewHeadWord() {
        let bytes = (0..<24).map { UInt8(truncatingIfNeeded: 0x30 &+ $0 &* 11) }
        bytes.withByteView { view in
            for start in 0...bytes.count {
                for end in start...bytes.count {
                    var expected: UInt64 = 0
                    for (index, byte) in bytes[start..<min(end, start + 8)].enumerated() { expected |= UInt64(byte) << UInt64(8 * index) }
                    #expect(view.view(start..<end).headWord == expected, "\(start)..<\(end)")
                }
            }
        }
        #expect(ByteView.empty.headWord == 0)
        #expect(Array("token".utf8).withByteView(\.headWord) == 0x6E_656B_6F74)
        #expect(Array("notification".utf8).withByteView(\.headWord) == Array("notifica".utf8).withByteView(\.headWord))
    }

    @Test("two views are equal exactly when their bytes are, at every length and every differing offset")
    func viewEquality() {
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37) }
            bytes.withByteView { a in
                bytes.withByteView { b in #expect(a.equals(b)) }
                (bytes + [0]).withByteView { longer in #expect(!a.equals(longer)) }
                for offset in 0..<length {
                    var changed = bytes
                    changed[offset] &+= 1
                    changed.withByteView { b in #expect(!a.equals(b), "differs at \(offset) of \(length)") }
                }
            }
        }
    }

    @Test("views of ranges are indexed from 0; eight-byte reads are little-endian")
    func rangesAndWords() {
        let bytes: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
        bytes.withByteView { view in
            let middle = view.view(2..<9)
            #expect(Array(middle) == [3, 4, 5, 6, 7, 8, 9])
            #expect(middle[0] == 3)
            #expect(view.loadUInt64(at: 2) == 0x0A09_0807_0605_0403)
            #expect(view.loadUInt64(at: 0) == 0x0807_0605_0403_0201)
            #expect(view.view(10..<10).isEmpty)
            #expect(middle.string == String(decoding: [3, 4, 5, 6, 7, 8, 9] as [UInt8], as: UTF8.self))
        }
        #expect(ByteView("abc").array == Array("abc".utf8))
        #expect(ByteView.empty.isEmpty)
    }

    @Test("the bounds check of ranges and eight-byte reads: inside, at the edges, and past them")
    func bounds() {
        [UInt8](repeating: 0, count: 16).withByteView { view in
            #expect(view.holds(0..<16) && view.holds(8..<16) && view.holds(16..<16) && view.holds(0..<0))
            #expect(!view.holds(9..<17) && !view.holds(-1..<3) && !view.holds(0..<17))
            #expect(view.loadUInt64(at: 8) == 0)
        }
        ByteView.empty.withContiguousStorageIfAvailable { #expect($0.isEmpty) }
        #expect(ByteView.empty.holds(0..<0) && !ByteView.empty.holds(0..<1))
    }

    @Test("a reader of damaged bytes never reads past the end: random bytes read as counts and strings fail or stay within")
    func hostileVarBytes() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let bytes = (0..<Int.random(in: 0...24, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            bytes.withByteView { view in
                var reader = VarBytes.Reader(view)
                while !reader.failed, reader.remaining > 0 {
                    let before = reader.offset
                    if Bool.random(using: &generator) {
                        let count = reader.count()
                        #expect(reader.failed || count <= view.count)
                    } else {
                        _ = reader.string()
                    }
                    #expect(reader.offset <= view.count)
                    if !reader.failed { #expect(reader.offset > before) }
                }
            }
        }
    }

    @Test("own bytes hold exactly what was written or copied, empty included")
    func ownBytes() {
        for bytes in [[], [0], Array(0...255), [UInt8](repeating: 0xA5, count: 4_097)] as [[UInt8]] {
            let copied = OwnBytes.copying(bytes)
            #expect(copied.count == bytes.count && copied.array == bytes)
            let made = OwnBytes.make(count: bytes.count) { out in
                for byte in bytes { out.put(byte &+ 1) }
            }
            #expect(made.array == bytes.map { $0 &+ 1 })
            #expect(made.withByteView(\.count) == bytes.count)
        }
    }

    @Test("temporary bytes hold what was written; immortal buffers what they were made of")
    func temporaryAndImmortal() {
        let sum = withTemporaryBytes(
            capacity: 300,
            writing: { out in for value in 0..<300 { out.put(UInt8(truncatingIfNeeded: value)) } },
            { view in view.reduce(0) { $0 + Int($1) } }
        )
        #expect(sum == (0..<300).reduce(0) { $0 + $1 % 256 })
        let table = ImmortalBuffer([3, 1, 4, 1, 5])
        #expect(Array(table) == [3, 1, 4, 1, 5])
        #expect(ImmortalBuffer<Int>([]).isEmpty)
        let slots = IntSlots(count: 5)
        slots.ints.fill(-1)
        slots.ints[2] = 9
        #expect((0..<5).map { slots.ints[$0] } == [-1, -1, 9, -1, -1])
    }

    @Test("a scratch list keeps what was appended past its first block, and empties without giving the block back")
    func scratchList() {
        let list = ScratchList<Int>(capacity: 2)
        for value in 0..<100 { list.append(value * 3) }
        #expect(Array(list) == (0..<100).map { $0 * 3 })
        #expect(list.capacity == 128)
        list[7] = -1
        #expect(list[7] == -1 && list.count == 100)
        list.removeAll()
        #expect(list.isEmpty && list.capacity == 128)
        list.append(5)
        #expect(Array(list) == [5])
    }

    @Test("a scratch list lets go of the objects it held when emptied and when freed")
    func scratchListReleases() {
        final class Token {}
        weak var first: Token?
        weak var second: Token?
        var list: ScratchList<Token>? = ScratchList(capacity: 1)
        do {
            let token = Token()
            first = token
            list?.append(token)
            list?.append(Token())
        }
        #expect(first != nil)
        list?.removeAll()
        #expect(first == nil)
        do {
            let token = Token()
            second = token
            list?.append(token)
        }
        #expect(second != nil)
        list = nil
        #expect(second == nil)
    }

    @Test("reading a scratch list past its count stops the process, as an array does")
    func scratchListBounds() async {
        await #expect(processExitsWith: .failure) {
            let list = ScratchList<Int>(capacity: 8)
            list.append(1)
            _ = list[1]
        }
    }

    @Test("contains(byte:) agrees with a byte-by-byte search: every length to 19, every position, in the words and the tail")
    func containsByte() {
        for length in 0..<20 {
            let base = (0..<length).map { UInt8(truncatingIfNeeded: 0x41 + $0) }
            base.withByteView { view in
                #expect(!view.contains(byte: UInt8(ascii: "\\")))
                #expect(!view.contains(byte: 0))
                #expect(!view.contains(byte: 0x80))
            }
            for position in 0..<length {
                for needle: UInt8 in [UInt8(ascii: "\\"), 0, 0x80, 0xFF, 0x01] {
                    var bytes = base
                    bytes[position] = needle
                    bytes.withByteView { view in
                        #expect(view.contains(byte: needle), "\(needle) at \(position) of \(length)")
                        #expect(view.firstIndex(byte: needle) == bytes.firstIndex(of: needle), "\(needle) at \(position) of \(length)")
                        #expect(view.contains(byte: needle &+ 1) == bytes.contains(needle &+ 1))
                    }
                }
            }
        }
        // The first of several, with a borrow from the one before: 0x01 then 0x00 looking for 0x00.
        let twice: [UInt8] = [0x41, 0x00, 0x01, 0x00, 0x00, 0x41, 0x41, 0x41, 0x00]
        twice.withByteView { view in
            #expect(view.firstIndex(byte: 0) == 1)
            #expect(view.view(2..<9).firstIndex(byte: 0) == 1)
            #expect(view.view(5..<9).firstIndex(byte: 0) == 3)
        }
        [UInt8](repeating: 0x01, count: 7).withByteView { #expect($0.firstIndex(byte: 0x01) == 0) }
        // Bytes that differ from the needle only in the high bit, or borrow into the next byte.
        [UInt8](repeating: 0xDC, count: 16).withByteView { #expect(!$0.contains(byte: UInt8(ascii: "\\"))) }
        [UInt8](repeating: 0x01, count: 16).withByteView { #expect(!$0.contains(byte: 0)) }
        [UInt8](repeating: 0x00, count: 16).withByteView { #expect(!$0.contains(byte: 0xFF)) }
    }

    @Test("firstJSONStringSpecial(from:) agrees with a byte-by-byte search: every length to 40, start and position (vectors, words, tail)")
    func firstJSONStringSpecial() {
        func isSpecial(_ byte: UInt8) -> Bool { byte == 0x22 || byte == 0x5C || byte < 0x20 || byte >= 0x80 }
        for length in 0..<41 {
            // Ordinary bytes next to the specials: space, "!", "#", "[", "]", "~", DEL.
            let plain: [UInt8] = [0x20, 0x21, 0x23, 0x5B, 0x5D, 0x7E, 0x7F]
            let base = (0..<length).map { plain[$0 % plain.count] }
            base.withByteView { view in
                for start in 0...length { #expect(view.firstJSONStringSpecial(from: start) == length, "none in \(length) from \(start)") }
            }
            for position in 0..<length {
                for needle: UInt8 in [0x22, 0x5C, 0x00, 0x1F, 0x80, 0xC3, 0xFF] {
                    var bytes = base
                    bytes[position] = needle
                    bytes.withByteView { view in
                        for start in 0...length {
                            let expected = (start..<length).first { isSpecial(bytes[$0]) } ?? length
                            #expect(view.firstJSONStringSpecial(from: start) == expected, "\(needle) at \(position) of \(length) from \(start)")
                        }
                    }
                }
            }
        }
        #expect(ByteView.empty.firstJSONStringSpecial(from: 0) == 0)
    }
}
