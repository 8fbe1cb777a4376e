// The ICU data a release build links: English and the root locale, from the toolchain's full data.
//
// usage: swiftc -O scripts/icu-data.swift -o trim && trim FULL.dat TRIMMED.dat
//
// Foundation on Linux carries ICU and all of its data (34 MB of the static binary's 105 MB):
// every locale's formats and names, collation, dictionary-based word breaking for Thai, Khmer, Lao,
// Burmese and CJK, and about two hundred legacy character sets. PushMock formats nothing by locale
// (its times are RFC 3339, its numbers JSON) and reads only Unicode. A release build keeps what
// Foundation needs for the root and English locales' formats, as Node.js's small-icu builds do,
// without the parts only APIs PushMock never calls read (below), and scripts/package links it in
// place of the full data. Other locales fall back to the root locale's formats, and
// String(data:encoding:) for a legacy character set (Shift JIS, say) answers nil.
//
// The file is ICU's common data package: a data header, then a table of contents (a count, then a
// name offset and a data offset for each item, both from the end of the header, sorted by name),
// the names, and the items, each aligned to 16 bytes. This writes the same header and the kept
// items in the same order.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

func fail(_ message: String) -> Never {
    fputs("icu-data: \(message)\n", stderr)
    exit(1)
}

func readFile(_ path: String) -> [UInt8] {
    guard let file = fopen(path, "rb") else { fail("cannot open \(path)") }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
        if count == 0 { break }
        bytes += chunk[0..<count]
    }
    return bytes
}

func uint16(_ bytes: [UInt8], _ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
func uint32(_ bytes: [UInt8], _ at: Int) -> Int { uint16(bytes, at) | uint16(bytes, at + 2) << 16 }
func append32(_ value: Int, to bytes: inout [UInt8]) {
    for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
}

/// Whether a release build keeps the item `name` (such as `icudt76l/coll/de.res`).
func keeps(_ name: String) -> Bool {
    let parts = name.split(separator: "/").dropFirst().map(String.init)
    guard let file = parts.last else { return false }
    let tree = parts.count > 1 ? parts[0] : ""
    // Legacy character sets (UTF-8, UTF-16, UTF-32, ASCII and Latin-1 are built into ICU's code)
    // and the spoof checker's confusables.
    if file.hasSuffix(".cnv") || file.hasSuffix(".cfu") { return false }
    // Dictionaries and models for word breaking in scripts written without spaces, and the rules
    // for breaking lines (no Foundation API on Linux breaks text into lines; words and characters
    // keep theirs).
    if tree == "brkitr", file.hasSuffix(".dict") || file.contains("lstm") || file.hasPrefix("line") { return false }
    // Transliteration (`applyingTransform`), collation (`localizedCompare`, comparing or searching
    // with a locale), character names (`StringTransform.toUnicodeName`) and display names
    // (`Locale.localizedString(for…)`, currency, unit and time-zone names): PushMock runs none of
    // them, and scripts/check-imports refuses the APIs that would read them. Without its data,
    // such an API answers as ICU does when data is missing (nil, the code itself, a plain
    // comparison), not with a crash.
    if ["translit", "coll", "curr", "lang", "region", "unit", "zone"].contains(tree) || file == "unames.icu" { return false }
    // StringPrep profiles (`*.spp`): only ICU's usprep reads them, for IDNA2003; Foundation turns
    // host names to ASCII by UTS #46 (`uts46.nrm`), and the link leaves usprep out. The locale
    // distance table (`langInfo.res`): only LocaleMatcher reads it, which Foundation never calls.
    // scripts/package checks after the link that the binary holds neither reader.
    if file.hasSuffix(".spp") || file == "langInfo.res" { return false }
    if isLocale(file) {
        return ["root", "en", "en_US", "en_US_POSIX", "en_001", "en_150", "en_GB"].contains { file == $0 + ".res" }
    }
    return true
}

/// A locale's bundle (`de.res`, `sr_Latn_BA.res`): two or three lowercase letters, then parts
/// after underscores. An index of the bundles (`res_index.res`) is not one.
func isLocale(_ file: String) -> Bool {
    guard file.hasSuffix(".res"), file != "res_index.res" else { return false }
    let parts = file.dropLast(4).split(separator: "_", omittingEmptySubsequences: false)
    guard let language = parts.first, (2...3).contains(language.count), language.allSatisfy({ $0.isLowercase && $0.isASCII }) else {
        return false
    }
    return parts.dropFirst().allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else { fail("usage: icu-data FULL.dat TRIMMED.dat") }
let full = readFile(arguments[1])
guard full.count > 16, full[2] == 0xDA, full[3] == 0x27 else { fail("\(arguments[1]) is not ICU common data") }
let header = uint16(full, 0)
// UDataInfo: its isBigEndian byte (little-endian data only, as every Linux target Swift has).
guard full[8] == 0 else { fail("\(arguments[1]) is big-endian ICU data") }
let count = uint32(full, header)
guard header + 4 + 8 * count <= full.count else { fail("\(arguments[1]): a table of contents longer than the file") }

var items: [(name: String, bytes: ArraySlice<UInt8>)] = []
for index in 0..<count {
    let nameOffset = header + uint32(full, header + 4 + 8 * index)
    let start = header + uint32(full, header + 8 + 8 * index)
    let end = index + 1 < count ? header + uint32(full, header + 8 + 8 * (index + 1)) : full.count
    guard let nameEnd = full[nameOffset...].firstIndex(of: 0), start <= end, end <= full.count else {
        fail("\(arguments[1]): item \(index) lies outside the file")
    }
    items.append((String(decoding: full[nameOffset..<nameEnd], as: UTF8.self), full[start..<end]))
}
let kept = items.filter { keeps($0.name) }
guard kept.contains(where: { $0.name.hasSuffix("/root.res") }), kept.contains(where: { $0.name.hasSuffix("/pool.res") }),
    kept.contains(where: { $0.name.hasSuffix("/brkitr/word.brk") }), kept.contains(where: { $0.name.hasSuffix("/zoneinfo64.res") })
else {
    fail("\(arguments[1]) has no root.res or pool.res: not the data this script knows")
}

// The table of contents, the names, padding to 16, then the items, each padded to 16.
var names: [UInt8] = []
var nameOffsets: [Int] = []
let contentsEnd = 4 + 8 * kept.count
for item in kept {
    nameOffsets.append(contentsEnd + names.count)
    names += Array(item.name.utf8) + [0]
}
var dataOffset = (contentsEnd + names.count + 15) & ~15
var out = Array(full[0..<header])
append32(kept.count, to: &out)
for (index, item) in kept.enumerated() {
    append32(nameOffsets[index], to: &out)
    append32(dataOffset, to: &out)
    dataOffset += (item.bytes.count + 15) & ~15
}
out += names
out += [UInt8](repeating: 0, count: ((contentsEnd + names.count + 15) & ~15) - (contentsEnd + names.count))
for item in kept {
    out += item.bytes
    out += [UInt8](repeating: 0, count: ((item.bytes.count + 15) & ~15) - item.bytes.count)
}
guard let file = fopen(arguments[2], "wb") else { fail("cannot write \(arguments[2])") }
guard out.withUnsafeBytes({ fwrite($0.baseAddress, 1, $0.count, file) }) == out.count, fclose(file) == 0 else {
    fail("cannot write \(arguments[2])")
}
print("ICU data: \(kept.count) of \(items.count) items, \(out.count) of \(full.count) bytes")
