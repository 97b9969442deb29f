import Foundation
import Testing

/// `gpx2fix` over every GPX (and GPX-like XML) file of the shared corpus, checked three ways:
///
/// - (a) it reads every file without crashing, and exits 0 on every file that has nothing
///   wrong with it (1 only on the files listed in `expectedProblems`);
/// - (b) its fixes are the same, field by field and by value, as those of an independent
///   reference reader, `Tests/oracle/gpx_oracle.py` (Python standard library only), with and
///   without `--waypoints`, and it exits with the same status;
/// - (c) its output text follows the fix record of SPEC.md (field order, no exponents,
///   times with exactly three fraction digits when the second is not whole).
///
/// Values are compared, not text: numbers must be the same double (both sides' text is read
/// with a correctly rounded conversion), times the same instant at millisecond precision.
@Suite("Corpus GPX: gpx2fix against the reference reader")
struct CorpusGPXTests {
    static let directory: URL? = Tools.corpus?.appendingPathComponent("gpx")

    /// Every GPX-like file of the corpus, by name (empty when the corpus is absent).
    static let files: [String] = {
        guard let directory else { return [] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".gpx") || $0.hasSuffix(".xml") }.sorted()
    }()

    static let oracle = Tools.packageRoot.appendingPathComponent("Tests/oracle/gpx_oracle.py")
    static let python = Tools.which("python3")
    static let pythonMissing = "python3 is not on PATH: the comparison with Tests/oracle/gpx_oracle.py is skipped"

    /// The files where gpx2fix must report a problem and exit 1; every other file must exit 0
    /// with nothing on standard error. Each has a reason, from the corpus MANIFEST.
    static let expectedProblems: [String: String] = [
        // 14 bytes, `<xml∂></xml>`: not well-formed XML (illegal name character).
        "georust-gpx__tests__fixtures__badcharacter.xml": "not well-formed XML",
        // Not XML at all: GPSBabel's error message "trackfilter-init: Found track point ...".
        "gpsbabel__reference__track__trackfilter_discard_err.gpx": "not XML at all",
        // lat="undefined", lon="x"/lat="y", <ele>bad data</ele>: every point is skipped.
        "togeojson__test__data__bad.gpx": "non-numeric lat/lon on every point",
    ]

    /// Known, explained differences between gpx2fix and the oracle, by file and by aspect
    /// ("exit", "fixes", "problem lines", or a field name). An aspect listed here is not
    /// compared for that file; everything else still is.
    static let knownDifferences: [String: [String: String]] = [
        // Both tools report the skipped points at the same lines (5, 8, 18). Beyond that,
        // gpx2fix also reports the two bad <wpt>s (lines 13, 14) although waypoints are not
        // written for this file (it has trkpt/rtept elements), and the oracle also reports the
        // <ele>bad data</ele> (line 19) of the <rtept> that is skipped anyway. Neither changes
        // the fixes (none) or the exit status (1); the rules do not say which is right.
        "togeojson__test__data__bad.gpx": [
            "problem lines": "reports about waypoints that are not written, and about values of skipped points"
        ],
    ]
    // Not listed, because they agree where it is compared: the two files that are not
    // well-formed XML (badcharacter.xml, trackfilter_discard_err.gpx) give no fixes, exit 1
    // and a problem at line 1 from both readers. The wording differs (gpx2fix: "not a GPX
    // file: it starts with ...", the oracle: expat's "syntax error"), and wording is never
    // compared.

    static func isKnown(_ file: String, _ aspect: String) -> Bool {
        knownDifferences[file]?[aspect] != nil
    }

    // MARK: (a) every file is read without a crash

    @Test(
        "gpx2fix reads the file without a crash; exit 0 unless the file is known to be bad",
        .enabled(if: Tools.corpus != nil, Comment(rawValue: Tools.corpusMissing)),
        arguments: CorpusGPXTests.files)
    func readsWithoutCrash(file: String) throws {
        let path = try #require(Self.directory).appendingPathComponent(file).path
        let result = try Tools.run("gpx2fix", [path])
        // A signal shows up here as its number (SIGTRAP 5 for a Swift trap, SIGSEGV 11, ...).
        #expect(
            result.status == 0 || result.status == 1,
            "gpx2fix \(file) ended with status \(result.status) (a crash?): \(result.stderr.prefix(2000))")
        #expect(!result.stderr.contains("Fatal error"), "\(result.stderr.prefix(2000))")
        if let reason = Self.expectedProblems[file] {
            #expect(result.status == 1, "\(file): \(reason), so gpx2fix should exit 1")
            #expect(!result.stderr.isEmpty, "\(file): \(reason), so gpx2fix should say so on stderr")
        } else {
            #expect(result.status == 0, "\(file) should be read cleanly; stderr: \(result.stderr.prefix(2000))")
            #expect(result.stderr.isEmpty, "\(file): unexpected stderr: \(result.stderr.prefix(2000))")
        }
        // Every message has the contract's shape `gpx2fix: FILE:LINE: message`.
        for line in result.stderr.split(separator: "\n") {
            #expect(
                Self.problemLine(String(line), tool: "gpx2fix", path: path) != nil,
                "stderr line is not `gpx2fix: FILE:LINE: message`: \(line)")
        }
    }

    // MARK: (b) the same fixes as the oracle

    @Test(
        "gpx2fix's fixes equal the reference reader's, field by field",
        .enabled(if: Tools.corpus != nil, Comment(rawValue: Tools.corpusMissing)),
        .enabled(if: CorpusGPXTests.python != nil, Comment(rawValue: CorpusGPXTests.pythonMissing)),
        arguments: CorpusGPXTests.files, [false, true])
    func sameFixesAsOracle(file: String, waypoints: Bool) throws {
        let path = try #require(Self.directory).appendingPathComponent(file).path
        let python = try #require(Self.python)
        let options = waypoints ? ["--waypoints"] : []
        let mode = waypoints ? "\(file) --waypoints" : file

        let tool = try Tools.run("gpx2fix", options + [path])
        let oracle = try Tools.runExecutable(python, [Self.oracle.path] + options + [path])
        try #require(
            oracle.status == 0 || oracle.status == 1,
            "the oracle failed on \(mode) (status \(oracle.status)): \(oracle.stderr)")

        if !Self.isKnown(file, "exit") {
            #expect(
                tool.status == oracle.status,
                "\(mode): gpx2fix exits \(tool.status), the oracle \(oracle.status); gpx2fix: \(tool.stderr.prefix(1000)) oracle: \(oracle.stderr.prefix(1000))")
        }
        if !Self.isKnown(file, "problem lines") {
            let toolLines = Set(tool.stderr.split(separator: "\n").compactMap { Self.problemLine(String($0), tool: "gpx2fix", path: path) })
            let oracleLines = Set(oracle.stderr.split(separator: "\n").compactMap { Self.problemLine(String($0), tool: "gpx_oracle", path: path) })
            #expect(
                toolLines == oracleLines,
                "\(mode): problems reported at lines \(toolLines.sorted()) by gpx2fix, \(oracleLines.sorted()) by the oracle")
        }
        if Self.isKnown(file, "fixes") { return }

        let mine = try Self.fixes(tool.out, who: "gpx2fix", file: mode)
        let theirs = try Self.fixes(oracle.out, who: "oracle", file: mode)
        #expect(mine.count == theirs.count, "\(mode): gpx2fix writes \(mine.count) fixes, the oracle \(theirs.count)")

        let differences = Self.fieldDifferences(mine, theirs, skipping: { Self.isKnown(file, $0) })
        // One issue per file, listing the first differences: a systematic bug in a 10,000-point
        // file should not bury the report.
        if !differences.isEmpty {
            Issue.record(
                Comment(
                    rawValue: "\(mode): \(differences.count) field differences; first ones:\n  "
                        + differences.prefix(15).joined(separator: "\n  ")))
        }
    }

    /// Every field whose value differs between two readings of the same fixes, pair by pair,
    /// in the record's field order, as lines for a test's message; `skipping` leaves out
    /// fields whose differences are known and explained.
    static func fieldDifferences(_ mine: [Fix], _ theirs: [Fix], skipping: (String) -> Bool = { _ in false }) -> [String] {
        var differences: [String] = []
        for (index, (a, b)) in zip(mine, theirs).enumerated() {
            let keys = Set(a.fields.map(\.key)).union(b.fields.map(\.key))
            for key in fieldOrder.filter(keys.contains) + keys.subtracting(fieldOrder).sorted() {
                if skipping(key) { continue }
                let x = a[key], y = b[key]
                if !sameValue(key, x, y) {
                    differences.append(
                        "fix #\(index) (oracle lat \(b["lat"]?.text ?? "?") lon \(b["lon"]?.text ?? "?")) \(key): gpx2fix \(x?.text ?? "absent"), oracle \(y?.text ?? "absent")")
                }
            }
        }
        return differences
    }

    // MARK: (c) the output text follows the fix record

    @Test(
        "gpx2fix's output follows the fix record (order, numbers, times)",
        .enabled(if: Tools.corpus != nil, Comment(rawValue: Tools.corpusMissing)),
        arguments: CorpusGPXTests.files)
    func outputFollowsFixRecord(file: String) throws {
        let path = try #require(Self.directory).appendingPathComponent(file).path
        let result = try Tools.run("gpx2fix", ["--waypoints", path])
        let fixes = try Self.fixes(result.out, who: "gpx2fix", file: file)
        var problems: [String] = []
        for (index, fix) in fixes.enumerated() {
            let keys = fix.fields.map(\.key)
            let known = keys.filter(Self.fieldOrder.contains)
            if known != Self.fieldOrder.filter(known.contains) { problems.append("fix #\(index): field order \(keys)") }
            if fix["lat"] == nil || fix["lon"] == nil { problems.append("fix #\(index): no lat/lon") }
            for (key, value) in fix.fields {
                switch (key, value) {
                case ("time", .string(let text)):
                    if Self.milliseconds(text) == nil { problems.append("fix #\(index): time \(text) is not RFC 3339 UTC") }
                    if let dot = text.firstIndex(of: ".") {
                        let fraction = text[text.index(after: dot)...].dropLast()
                        if fraction.count != 3 || fraction == "000" {
                            problems.append("fix #\(index): time \(text) needs exactly 3 fraction digits, and none for a whole second")
                        }
                    }
                case ("sat", .number(let text)), ("seg", .number(let text)):
                    if Int(text) == nil { problems.append("fix #\(index): \(key) \(text) is not an integer") }
                case (_, .number(let text)):
                    if text.contains(where: { $0 == "e" || $0 == "E" }) { problems.append("fix #\(index): \(key) \(text) has an exponent") }
                    if Double(text) == nil { problems.append("fix #\(index): \(key) \(text) is not a number") }
                case (_, .string):
                    if Self.fieldOrder.contains(key) && !["name", "trace"].contains(key) {
                        problems.append("fix #\(index): \(key) should be a number, not a string")
                    }
                case (_, .other(let text)):
                    problems.append("fix #\(index): \(key) is \(text) (absent fields are left out, never null)")
                }
            }
        }
        if !problems.isEmpty {
            Issue.record(
                Comment(
                    rawValue: "\(file): \(problems.count) problems; first ones:\n  "
                        + problems.prefix(15).joined(separator: "\n  ")))
        }
    }

    // MARK: - Reading the NDJSON by value

    static let fieldOrder = [
        "time", "lat", "lon", "alt", "hacc", "vacc", "speed", "course", "cacc",
        "hdop", "vdop", "pdop", "sat", "name", "trace", "seg",
    ]

    /// A JSON value as written: numbers keep their text, so that both sides are converted
    /// with the same correctly rounded `Double(String)`.
    enum Value: Equatable {
        case string(String)
        case number(String)
        case other(String)  // true, false, null, arrays, objects: never in a fix

        var text: String {
            switch self {
            case .string(let s): return "\"\(s)\""
            case .number(let s), .other(let s): return s
            }
        }
    }

    struct Fix {
        var fields: [(key: String, value: Value)]
        subscript(key: String) -> Value? { fields.first { $0.key == key }?.value }
    }

    static func fixes(_ output: String, who: String, file: String) throws -> [Fix] {
        try output.split(separator: "\n", omittingEmptySubsequences: true).enumerated().map { index, line in
            var parser = FlatJSON(Array(line.utf8))
            guard let fix = parser.object() else {
                throw TestFailure("\(file): \(who)'s line \(index + 1) is not a flat JSON object: \(line)")
            }
            return fix
        }
    }

    static func sameValue(_ key: String, _ a: Value?, _ b: Value?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (.string(let x)?, .string(let y)?):
            if key == "time", let p = milliseconds(x), let q = milliseconds(y) { return p == q }
            return x == y
        case (.number(let x)?, .number(let y)?):
            guard let p = Double(x), let q = Double(y) else { return x == y }
            // The same double: equal, and the same sign for zeros (-0 and 0 differ).
            return p == q && p.sign == q.sign
        default: return false
        }
    }

    /// Milliseconds since 1970 of `YYYY-MM-DDTHH:MM:SS[.f…]Z`, the fraction rounded to the
    /// nearest millisecond; nil for anything else.
    static func milliseconds(_ text: String) -> Int? {
        let u = Array(text.utf8)
        func digits(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= u.count else { return nil }
            var value = 0
            for c in u[from..<(from + count)] {
                guard c >= 48 && c <= 57 else { return nil }
                value = value * 10 + Int(c - 48)
            }
            return value
        }
        guard u.count >= 20, u[4] == UInt8(ascii: "-"), u[7] == UInt8(ascii: "-"), u[10] == UInt8(ascii: "T"),
            u[13] == UInt8(ascii: ":"), u[16] == UInt8(ascii: ":"), u.last == UInt8(ascii: "Z"),
            let y = digits(0, 4), let mo = digits(5, 2), let d = digits(8, 2),
            let h = digits(11, 2), let mi = digits(14, 2), let s = digits(17, 2),
            (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, s < 60
        else { return nil }
        var ms = 0
        if u.count > 20 {
            guard u[19] == UInt8(ascii: "."), u.count > 21 else { return nil }
            let fraction = u[20..<(u.count - 1)]
            guard fraction.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
            // Round half up on the digits beyond the third.
            let padded = Array(fraction) + [48, 48, 48]
            ms = Int(padded[0] - 48) * 100 + Int(padded[1] - 48) * 10 + Int(padded[2] - 48)
            if fraction.count > 3, padded[3] >= 53 { ms += 1 }
        } else if u.count != 20 {
            return nil
        }
        // Days from the civil date (H. Hinnant's algorithm), proleptic Gregorian.
        let yy = mo <= 2 ? y - 1 : y
        let era = (yy >= 0 ? yy : yy - 399) / 400
        let yoe = yy - era * 400
        let doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146097 + doe - 719468
        return ((days * 86400 + h * 3600 + mi * 60 + s) * 1000) + ms
    }

    /// The line number of a `TOOL: PATH:LINE: message` stderr line, nil if it has another shape.
    static func problemLine(_ line: String, tool: String, path: String) -> Int? {
        let prefix = "\(tool): \(path):"
        guard line.hasPrefix(prefix) else { return nil }
        let rest = line.dropFirst(prefix.count)
        guard let colon = rest.firstIndex(of: ":"), let number = Int(rest[..<colon]),
            rest[colon...].hasPrefix(": "), rest.count > rest[..<colon].count + 2
        else { return nil }
        return number
    }
}

/// A reader for one flat JSON object (string keys; string, number or literal values), that
/// keeps the order of the fields and the text of the numbers.
struct FlatJSON {
    let bytes: [UInt8]
    var i = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func object() -> CorpusGPXTests.Fix? {
        skipSpace()
        guard take(UInt8(ascii: "{")) else { return nil }
        var fields: [(key: String, value: CorpusGPXTests.Value)] = []
        skipSpace()
        if take(UInt8(ascii: "}")) { return end() ? CorpusGPXTests.Fix(fields: fields) : nil }
        while true {
            skipSpace()
            guard let key = string() else { return nil }
            skipSpace()
            guard take(UInt8(ascii: ":")) else { return nil }
            skipSpace()
            guard let value = value() else { return nil }
            fields.append((key, value))
            skipSpace()
            if take(UInt8(ascii: ",")) { continue }
            guard take(UInt8(ascii: "}")) else { return nil }
            return end() ? CorpusGPXTests.Fix(fields: fields) : nil
        }
    }

    private mutating func end() -> Bool {
        skipSpace()
        return i == bytes.count
    }

    private mutating func skipSpace() {
        while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard i < bytes.count, bytes[i] == byte else { return false }
        i += 1
        return true
    }

    private mutating func value() -> CorpusGPXTests.Value? {
        guard i < bytes.count else { return nil }
        let c = bytes[i]
        if c == UInt8(ascii: "\"") { return string().map { .string($0) } }
        if c == UInt8(ascii: "-") || (c >= 48 && c <= 57) {
            let start = i
            while i < bytes.count, "+-.eE0123456789".utf8.contains(bytes[i]) { i += 1 }
            return .number(String(decoding: bytes[start..<i], as: UTF8.self))
        }
        // Anything else (true/false/null, arrays, objects): its text up to the next top-level , or }.
        let start = i
        var depth = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "[") || b == UInt8(ascii: "{") { depth += 1 }
            if b == UInt8(ascii: "]") || b == UInt8(ascii: "}") {
                if depth == 0 { break }
                depth -= 1
            }
            if b == UInt8(ascii: ","), depth == 0 { break }
            i += 1
        }
        return i > start ? .other(String(decoding: bytes[start..<i], as: UTF8.self)) : nil
    }

    private mutating func string() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        var out: [UInt8] = []
        while i < bytes.count {
            let c = bytes[i]
            i += 1
            if c == UInt8(ascii: "\"") { return String(decoding: out, as: UTF8.self) }
            if c != UInt8(ascii: "\\") { out.append(c); continue }
            guard i < bytes.count else { return nil }
            let e = bytes[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                guard var unit = hex4() else { return nil }
                var scalar: Unicode.Scalar?
                if (0xD800..<0xDC00).contains(unit) {
                    // A surrogate pair: \uD83D\uDCA5.
                    guard take(UInt8(ascii: "\\")), take(UInt8(ascii: "u")), let low = hex4(),
                        (0xDC00..<0xE000).contains(low)
                    else { return nil }
                    unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                }
                scalar = Unicode.Scalar(unit)
                guard let scalar else { return nil }
                out.append(contentsOf: Array(String(Character(scalar)).utf8))
            default: return nil
            }
        }
        return nil
    }

    private mutating func hex4() -> UInt32? {
        guard i + 4 <= bytes.count, let v = UInt32(String(decoding: bytes[i..<(i + 4)], as: UTF8.self), radix: 16)
        else { return nil }
        i += 4
        return v
    }
}
