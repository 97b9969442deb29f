import Foundation
import Testing

/// `gpx2fix` over every NMEA 0183 log of the shared corpus (`../shared/corpus/nmea/`, 61 logs),
/// checked two ways:
///
/// - (a) it reads every log without crashing and exits 0 (NMEA noise, such as bad checksums,
///   is counted, not an error), writes only well-formed fix lines, and writes at most a
///   summary line and a no-date note on standard error, each `gpx2fix: FILE: message`;
/// - (b) its fixes are the same, field by field and by value, as those of an independent
///   reference reader, `Tests/oracle/nmea_oracle.py` (Python 3 + pynmea2), written from
///   gpx2fix's NMEA rules and not from its source; and both drop the same number of
///   sentences for a bad checksum and as malformed. Each log is compared twice: as is, and
///   with `--date 2001-09-09 --uere 4` (which matter only where the log has no date, and
///   where it has an HDOP but no GST).
///
/// Values, not text, are compared: lat/lon to 1e-9 degrees (ddmm.mmmm can be converted to
/// degrees in more than one order), other numbers to 1e-9 relative, times exactly at the
/// millisecond, strings exactly. `knownDifferences` lists, per file, the differences that are
/// understood, each with the reason.
@Suite("Corpus NMEA: gpx2fix against the pynmea2 reference reader")
struct CorpusNMEATests {
    static let directory: URL? = Tools.corpus?.appendingPathComponent("nmea")

    /// Every NMEA log of the corpus, by name (empty when the corpus is absent).
    static let files: [String] = {
        guard let directory else { return [] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted()
    }()

    static let oracle = Tools.packageRoot.appendingPathComponent("Tests/oracle/nmea_oracle.py")
    static let python = Tools.which("python3")

    /// Whether python3 can import pynmea2 (asked once).
    static let pynmea2Available: Bool = {
        guard let python else { return false }
        let result = try? Tools.runExecutable(python, ["-c", "import pynmea2"])
        return result?.status == 0
    }()
    static let oracleMissing =
        "python3 with pynmea2 is not available (pip install pynmea2): the comparison with Tests/oracle/nmea_oracle.py is skipped"

    /// The two ways each log is read: as is, and with the options that fill in what a log
    /// lacks (a start date for logs without one, hacc from HDOP for logs without GST).
    static let optionSets: [[String]] = [[], ["--date", "2001-09-09", "--uere", "4"]]

    /// Logs that are not NMEA at all, where gpx2fix may exit 1. There are none: every file in
    /// nmea/ is framed as NMEA, even the ones without a single fix (`waypoints.nmea`: WPL
    /// only; `magellandate.log`: $PMGNTRK only; `skytraq-err.log`: `$STI,IC,error=N`;
    /// `pygpsdata-userdefined.log`: $U1XYZ/$U2ZYX; `unicore_nmea.log`: GGAH/RMCH/... types
    /// that are not GGA/RMC), so each of them must be read cleanly with no fixes.
    static let notNMEA: [String: String] = [:]

    /// A difference between gpx2fix and the oracle that is understood. `aspect` is a fix
    /// field name, "fixes" (the fix lists are not compared at all) or "dropped" (the counts
    /// of sentences dropped for a bad checksum or as malformed); `fixes` limits a field to
    /// those fix indexes (nil: every fix).
    struct Known {
        var aspect: String
        var fixes: Set<Int>? = nil
        var why: String
    }

    static let knownDifferences: [String: [Known]] = [
        "gpsd__test__daemon__gp-320fw-2019-04-07-coldboot.log": [
            // Garbled run-on sentences are counted differently: gpx2fix accepts a sentence
            // whose valid checksum is followed by more text (`$GPGSA,A,1,,,...,*1E*43`,
            // `...*1E0,*4E`, `...*1E0,,13,68,...`: 3 void GSAs), the oracle counts them as
            // bad checksums (36 vs 33); and the oracle counts `$GPVTG,,T,,M,2C` (cut short
            // after 5 fields) as malformed where gpx2fix reads it as an empty VTG (3 vs 2).
            // No fix changes: every one of these is void.
            Known(
                aspect: "dropped", why: "text after a valid checksum, and a VTG cut short, are classified differently")
        ],
        // Unicore's high-precision sentences ($GNGGAH, $GNRMCH: GGA and RMC with more
        // digits) are read by gpx2fix as GGA and RMC; pynmea2 has no parser for them, so the
        // oracle finds no fix in this log.
        "pynmeagps__tests__unicore_nmea.log": [
            Known(
                aspect: "fixes",
                why: "four-letter high-precision types (GGAH, RMCH): gpx2fix reads them, pynmea2 cannot")
        ],
    ]
    // Not listed, because they agree: the logs with bad checksums (firefly-II 23, garmin48 1
    // with `*7`, st-teseo 1, BADHDR 1, nmeabadck 2), the cut-short sentences (triton400's
    // `$GPGGA,030130`, iTrek's `$GPGSA,A,1,,,,`, nmeadate's `$GPGSA,A,`), the logs without a
    // date (the note on stderr, and --date), the late dates (backfilldate, and the logs whose
    // first RMC comes after their first GGA/GLL), CR-only, CR CR LF, `$$`, NUL bytes and
    // binary UBX frames. The wording of stderr is never compared, only the counts.

    static func known(_ file: String, _ aspect: String, fix: Int? = nil) -> Bool {
        (knownDifferences[file] ?? []).contains { k in
            k.aspect == aspect && (k.fixes == nil || fix.map { k.fixes!.contains($0) } == true)
        }
    }

    @Test(
        "the corpus has the 61 NMEA logs the tests were written for",
        .enabled(if: Tools.corpus != nil, Comment(rawValue: Tools.corpusMissing)))
    func corpusIsComplete() {
        #expect(Self.files.count == 61, "nmea/ has \(Self.files.count) files")
        for file in Self.knownDifferences.keys.sorted() {
            #expect(Self.files.contains(file), "knownDifferences names \(file), which is not in the corpus")
        }
    }

    // MARK: (a) every log is read without a crash

    @Test(
        "gpx2fix reads the log without a crash, exit 0, well-formed output and stderr",
        .enabled(if: Tools.corpus != nil, Comment(rawValue: Tools.corpusMissing)),
        arguments: CorpusNMEATests.files)
    func readsWithoutCrash(file: String) throws {
        let path = try #require(Self.directory).appendingPathComponent(file).path
        let result = try Tools.run("gpx2fix", [path])
        // A signal shows up here as its number (SIGTRAP 5 for a Swift trap, SIGSEGV 11, ...).
        #expect(!result.stderr.contains("Fatal error"), "\(result.stderr.prefix(2000))")
        if let reason = Self.notNMEA[file] {
            #expect(result.status == 0 || result.status == 1, "\(file) (\(reason)): status \(result.status)")
        } else {
            #expect(
                result.status == 0,
                "gpx2fix \(file) ended with status \(result.status); NMEA noise must not make it fail: \(result.stderr.prefix(2000))"
            )
        }

        // Standard error: `gpx2fix: FILE: message` (or with a line, `FILE:LINE: message`),
        // at most one dropped-sentence summary and at most one no-date note.
        let lines = result.stderr.split(separator: "\n").map(String.init)
        for line in lines {
            #expect(
                Self.message(line, tool: "gpx2fix", path: path) != nil,
                "stderr line is not `gpx2fix: \(file): message`: \(line)")
        }
        #expect(lines.filter { $0.contains("dropped") }.count <= 1, "\(file): more than one summary: \(lines)")
        #expect(lines.filter { $0.contains("no date") }.count <= 1, "\(file): more than one no-date note: \(lines)")

        // Standard output: one flat JSON fix a line, lat/lon in range, fields in order.
        let fixes = try CorpusGPXTests.fixes(result.out, who: "gpx2fix", file: file)
        var problems: [String] = []
        for (index, fix) in fixes.enumerated() {
            let keys = fix.fields.map(\.key)
            let ordered = keys.filter(CorpusGPXTests.fieldOrder.contains)
            if ordered != CorpusGPXTests.fieldOrder.filter(ordered.contains) {
                problems.append("fix #\(index): field order \(keys)")
            }
            guard case .number(let la)? = fix["lat"], case .number(let lo)? = fix["lon"],
                let lat = Double(la), let lon = Double(lo), abs(lat) <= 90, abs(lon) <= 180
            else {
                problems.append("fix #\(index): lat/lon missing or out of range")
                continue
            }
            if case .string(let time)? = fix["time"], CorpusGPXTests.milliseconds(time) == nil {
                problems.append("fix #\(index): time \(time) is not RFC 3339 UTC")
            }
            if fix["trace"] != .string(file) {
                problems.append("fix #\(index): trace \(fix["trace"]?.text ?? "absent"), not the file's name")
            }
        }
        if !problems.isEmpty {
            Issue.record(
                Comment(
                    rawValue: "\(file): \(problems.count) problems; first ones:\n  "
                        + problems.prefix(15).joined(separator: "\n  ")))
        }
    }

    // MARK: (b) the same fixes as the oracle

    @Test(
        "gpx2fix's fixes equal the pynmea2 reference reader's, field by field",
        .enabled(if: Tools.corpus != nil, Comment(rawValue: Tools.corpusMissing)),
        .enabled(if: CorpusNMEATests.pynmea2Available, Comment(rawValue: CorpusNMEATests.oracleMissing)),
        arguments: CorpusNMEATests.files, CorpusNMEATests.optionSets)
    func sameFixesAsOracle(file: String, options: [String]) throws {
        let path = try #require(Self.directory).appendingPathComponent(file).path
        let python = try #require(Self.python)
        let mode = ([file] + options).joined(separator: " ")

        let tool = try Tools.run("gpx2fix", options + [path])
        let oracle = try Tools.runExecutable(python, [Self.oracle.path, path] + options)
        try #require(oracle.status == 0, "the oracle failed on \(mode) (status \(oracle.status)): \(oracle.stderr)")
        #expect(tool.status == 0, "\(mode): gpx2fix exits \(tool.status): \(tool.stderr.prefix(1000))")

        // The no-date note: both or neither.
        let toolNote = tool.stderr.contains("no date"), oracleNote = oracle.stderr.contains("no date")
        if !Self.known(file, "fixes") {
            #expect(
                toolNote == oracleNote, "\(mode): no-date note from gpx2fix \(toolNote), from the oracle \(oracleNote)")
        }
        // Sentences dropped for a bad checksum, as malformed, and as not measured (GGA
        // quality 7 or 8): the same counts.
        if !Self.known(file, "dropped") {
            let a = Self.dropped(tool.stderr), b = Self.dropped(oracle.stderr)
            #expect(
                a == b,
                "\(mode): dropped (bad checksum, malformed, not measured): gpx2fix \(a), oracle \(b)")
        }
        if Self.known(file, "fixes") { return }

        let mine = try CorpusGPXTests.fixes(tool.out, who: "gpx2fix", file: mode)
        let theirs = try CorpusGPXTests.fixes(oracle.out, who: "oracle", file: mode)
        #expect(mine.count == theirs.count, "\(mode): gpx2fix writes \(mine.count) fixes, the oracle \(theirs.count)")

        var differences: [String] = []
        for (index, (a, b)) in zip(mine, theirs).enumerated() {
            let keys = Set(a.fields.map(\.key)).union(b.fields.map(\.key))
            let order = CorpusGPXTests.fieldOrder
            for key in order.filter(keys.contains) + keys.subtracting(order).sorted() {
                if Self.known(file, key, fix: index) { continue }
                let x = a[key], y = b[key]
                if !Self.sameValue(key, x, y) {
                    differences.append(
                        "fix #\(index) (oracle time \(b["time"]?.text ?? "none")) \(key): gpx2fix \(x?.text ?? "absent"), oracle \(y?.text ?? "absent")"
                    )
                }
            }
        }
        // One issue per file and mode, with the first differences.
        if !differences.isEmpty {
            Issue.record(
                Comment(
                    rawValue: "\(mode): \(differences.count) field differences; first ones:\n  "
                        + differences.prefix(15).joined(separator: "\n  ")))
        }
    }

    // MARK: - Helpers

    /// Equal by value: lat/lon within 1e-9 degrees, other numbers within 1e-9 relative, times
    /// the same millisecond, strings the same text, absent on both sides.
    static func sameValue(_ key: String, _ a: CorpusGPXTests.Value?, _ b: CorpusGPXTests.Value?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (.string(let x)?, .string(let y)?):
            if key == "time" {
                guard let p = CorpusGPXTests.milliseconds(x), let q = CorpusGPXTests.milliseconds(y) else {
                    return false
                }
                return p == q
            }
            return x == y
        case (.number(let x)?, .number(let y)?):
            guard let p = Double(x), let q = Double(y) else { return x == y }
            if key == "lat" || key == "lon" { return abs(p - q) <= 1e-9 }
            return abs(p - q) <= 1e-9 * max(abs(p), abs(q))
        default: return false
        }
    }

    /// The counts in a summary `N with a bad checksum, M malformed and K not measured (...) of
    /// T NMEA sentences dropped` (any part may be missing: 0).
    static func dropped(_ stderr: String) -> [Int] {
        func count(before phrase: String) -> Int {
            guard let range = stderr.range(of: phrase) else { return 0 }
            let digits = stderr[..<range.lowerBound].reversed().prefix { $0.isNumber }
            return Int(String(digits.reversed())) ?? 0
        }
        return [count(before: " with a bad checksum"), count(before: " malformed"), count(before: " not measured")]
    }

    /// The message of a `TOOL: PATH: message` or `TOOL: PATH:LINE: message` stderr line, nil
    /// if it has another shape.
    static func message(_ line: String, tool: String, path: String) -> String? {
        let prefix = "\(tool): \(path):"
        guard line.hasPrefix(prefix) else { return nil }
        var rest = Substring(line.dropFirst(prefix.count))
        if let colon = rest.firstIndex(of: ":"), Int(rest[..<colon]) != nil { rest = rest[rest.index(after: colon)...] }
        guard rest.hasPrefix(" "), rest.count > 1 else { return nil }
        return String(rest.dropFirst())
    }
}
