import Foundation
import Testing

@testable import FixKit

/// gpx2fix's CSV reader (`Sources/FixKit/CSV`):
/// - files written from a known truth in seven producers' styles (GPSBabel unicsv, a European
///   spreadsheet, a phone app's tab export, a pipe-delimited log with awkward names, the
///   Columbus V-900, iBlue 747 and MTK loggers), compared field by field with what the truth
///   and the man page's conversions give, whole and read in small pieces;
/// - bad rows (cut, not numbers, out of range, unknown units), each reported with its line;
/// - every corpus CSV against `Tests/oracle/csv_oracle.py` (Python's csv module), and against
///   `gpsbabel -i unicsv` on the files in unicsv's style;
/// - recognition: every CSV header is claimed, and no file of another format is.
@Suite("CSV format: gpx2fix reads delimited track logs")
struct CSVFormatTests {
    // MARK: - Generated files

    /// One point of the truth, with the digits the files write.
    struct Truth {
        var lat: Double
        var lon: Double
        /// Milliseconds since 1970, whole seconds or with milliseconds.
        var ms: Int64
        var alt: Double
        var speed: Double
        var course: Double
        var hacc: Double
        var sat: Int
        var name: String
    }

    static func truth(_ count: Int, seed: UInt64) -> [Truth] {
        var g = FixGenerator(seed: seed)
        var t: Int64 = 1_600_000_000_000 + Int64(g.nextUInt() % 100_000_000) * 1000
        return (0..<count).map { _ in
            t += 1000 + (g.chance(0.5) ? Int64(g.nextUInt() % 1000) : 0)
            let names = [
                "Start", "a \"quoted\" name", "semi;colon,comma|pipe", "tab\tname", "two\nlines", "Zürich 東京", "",
            ]
            return Truth(
                lat: ((g.unit() * 2 - 1) * 89.9 * 1e6).rounded() / 1e6,
                lon: ((g.unit() * 2 - 1) * 179.9 * 1e6).rounded() / 1e6,
                ms: t, alt: ((g.unit() * 3000 - 100) * 10).rounded() / 10, speed: (g.unit() * 400).rounded() / 10,
                course: (g.unit() * 3599).rounded() / 10, hacc: (g.unit() * 500).rounded() / 10,
                sat: Int(g.nextUInt() % 20),
                name: g.pick(names))
        }
    }

    /// How a producer writes a file: its header, a row from a point, and the fix gpx2fix must
    /// read from that row (computed from the written digits, by the man page's conversions).
    struct Style: CustomTestStringConvertible, Sendable {
        var label: String
        var lineEnd = "\n"
        var header: String
        var row: @Sendable (Truth, Int) -> String
        var expected: @Sendable (Truth, Int) -> Fix
        var testDescription: String { label }
    }

    /// `d` written with up to `places` decimals, the shortest form.
    static func text(_ d: Double, _ places: Int = 6) -> String {
        var s = String(format: "%.\(places)f", d)
        while s.contains("."), s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s
    }

    static func quoted(_ s: String, _ q: Bool = true) -> String {
        q ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s
    }

    static func utc(_ ms: Int64, _ format: String) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = format
        return f.string(from: Date(timeIntervalSince1970: Double(ms) / 1000))
    }

    static func fix(_ t: Truth, time: Int64?, file: String) -> Fix {
        Fix(time: time.map { Timestamp(milliseconds: $0) }, lat: t.lat, lon: t.lon, trace: file, seg: 0)
    }

    static func d(_ s: String) -> Double { Double(s) ?? .nan }

    static let styles: [Style] = [
        Style(
            label: "GPSBabel unicsv: CRLF, date and time columns, seconds",
            lineEnd: "\r\n", header: "No,Latitude,Longitude,Altitude,Speed,Course,Sat,Name,Date,Time",
            row: { t, i in
                "\(i + 1),\(text(t.lat)),\(text(t.lon)),\(text(t.alt, 1)),\(text(t.speed, 2)),\(text(t.course, 1)),\(t.sat),\(quoted(t.name)),"
                    + utc(t.ms, "yyyy/MM/dd,HH:mm:ss")
            },
            expected: { t, _ in
                var f = fix(t, time: t.ms / 1000 * 1000, file: "f.csv")
                f.alt = d(text(t.alt, 1))
                f.speed = d(text(t.speed, 2))
                f.course = d(text(t.course, 1))
                f.sat = t.sat
                f.name = t.name.isEmpty ? nil : t.name
                return f
            }),
        Style(
            label:
                "spreadsheet (old Excel for the Mac): CR line ends, semicolons, decimal commas, every cell quoted, km/h and ft in the header, RFC 3339 with an offset",
            lineEnd: "\r",
            header: "\"Latitude\";\"Longitude\";\"Time\";\"Speed (km/h)\";\"Ele (ft)\"",
            row: { t, _ in
                [
                    text(t.lat).replacingOccurrences(of: ".", with: ","),
                    text(t.lon).replacingOccurrences(of: ".", with: ","),
                    utc(t.ms + 7_200_000, "yyyy-MM-dd'T'HH:mm:ss.SSS") + "+02:00",
                    text(t.speed * 3.6, 3).replacingOccurrences(of: ".", with: ","), text(t.alt / 0.3048, 2),
                ].map { quoted($0) }.joined(separator: ";")
            },
            expected: { t, _ in
                var f = fix(t, time: t.ms, file: "f.csv")
                f.speed = d(text(t.speed * 3.6, 3)) / 3.6
                f.alt = d(text(t.alt / 0.3048, 2)) * 0.3048
                return f
            }),
        Style(
            label: "phone app: tabs, time_ms, lng, accuracy, bearing, satellites",
            header: "time_ms\tlat\tlng\taccuracy\tbearing\tsatellites\tprovider",
            row: { t, _ in
                "\(t.ms)\t\(text(t.lat))\t\(text(t.lon))\t\(text(t.hacc, 1))\t\(text(t.course, 1))\t\(t.sat)\tgps"
            },
            expected: { t, _ in
                var f = fix(t, time: t.ms, file: "f.csv")
                f.hacc = d(text(t.hacc, 1))
                f.course = d(text(t.course, 1))
                f.sat = t.sat
                return f
            }),
        Style(
            label:
                "pipes, '# ' before names, spaced cells, YYYY-MM-DD HH:MM:SS.fff as UTC, names with delimiters, quotes and line breaks",
            header: "# Lat | # Lon | Date Time | Speed_kmh | name | Alt (m)",
            row: { t, _ in
                " \(text(t.lat)) | \(text(t.lon)) | \(utc(t.ms, "yyyy-MM-dd HH:mm:ss.SSS")) | \(text(t.speed * 3.6, 1))|\(quoted(t.name))| \(text(t.alt, 1)) m"
            },
            expected: { t, _ in
                var f = fix(t, time: t.ms, file: "f.csv")
                f.speed = d(text(t.speed * 3.6, 1)) / 3.6
                f.alt = d(text(t.alt, 1))
                f.name = t.name.isEmpty ? nil : t.name
                return f
            }),
        Style(
            label: "Columbus V-900: NUL padding, CRLF, YYMMDD and HHMMSS, N/S E/W suffixes, km/h",
            lineEnd: "\r\n", header: "INDEX,TAG,DATE,TIME,LATITUDE N/S,LONGITUDE E/W,HEIGHT,SPEED,HEADING,VOX",
            row: { t, i in
                let lat = text(abs(t.lat)) + (t.lat < 0 ? "S" : "N")
                let lon = text(abs(t.lon)) + (t.lon < 0 ? "W" : "E")
                return
                    "\(i + 1)\0\0\0,T,\(utc(t.ms, "yyMMdd,HHmmss")),\(lat),\(lon),\(Int(t.alt))\0\0,\(Int(t.speed))\0\0,\(Int(t.course)),\0\0\0\0"
            },
            expected: { t, _ in
                var f = fix(t, time: t.ms / 1000 * 1000, file: "f.csv")
                f.alt = Double(Int(t.alt))
                f.speed = Double(Int(t.speed)) / 3.6
                f.course = Double(Int(t.course))
                return f
            }),
        Style(
            label: "iBlue 747: YYYY/MM/DD, N/S and E/W columns, trailing comma in the header only, km/h",
            header: "INDEX,RCR,DATE,TIME,VALID,LATITUDE,N/S,LONGITUDE,E/W,HEIGHT,SPEED,DISTANCE,",
            row: { t, i in
                "\(i + 1),T,\(utc(t.ms, "yyyy/MM/dd,HH:mm:ss")),SPS,\(text(abs(t.lat))),\(t.lat < 0 ? "S" : "N"),\(text(abs(t.lon))),\(t.lon < 0 ? "W" : "E"),\(text(t.alt, 0)),\(text(t.speed, 1)),0.5"
            },
            expected: { t, _ in
                var f = fix(t, time: t.ms / 1000 * 1000, file: "f.csv")
                f.alt = d(text(t.alt, 0))
                f.speed = d(text(t.speed, 1)) / 3.6
                return f
            }),
        Style(
            label: "MTK logger: units inside values, milliseconds in the time, NSAT (USED/VIEW)",
            header: "INDEX,RCR,DATE,TIME,VALID,LATITUDE,N/S,LONGITUDE,E/W,HEIGHT,SPEED,HDOP,NSAT (USED/VIEW),",
            row: { t, i in
                "\(i + 1),T,\(utc(t.ms, "yyyy/MM/dd,HH:mm:ss.SSS")),SPS,\(text(abs(t.lat))),\(t.lat < 0 ? "S" : "N"),\(text(abs(t.lon))),\(t.lon < 0 ? "W" : "E"),\(text(t.alt, 3)) m,\(text(t.speed * 3.6, 3)) km/h,1.2,\(t.sat)(\(t.sat + 2)),"
            },
            expected: { t, _ in
                var f = fix(t, time: t.ms, file: "f.csv")
                f.alt = d(text(t.alt, 3))
                f.speed = d(text(t.speed * 3.6, 3)) / 3.6
                f.hdop = 1.2
                f.sat = t.sat
                return f
            }),
    ]

    /// Writes `content` to a file named `name` in a new directory; returns its path.
    static func file(_ name: String, _ content: Data) throws -> (path: String, dir: URL) {
        let dir = TestScratch.root.appendingPathComponent("fixkit-csv-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent(name).path
        try content.write(to: URL(fileURLWithPath: path))
        return (path, dir)
    }

    static func decode(_ out: Data) throws -> [Fix] {
        var decoder = FixDecoder()
        return try out.split(separator: UInt8(ascii: "\n")).map { line in
            try Array(line).withUnsafeBufferPointer { try decoder.decode($0) }
        }
    }

    /// Field by field; `NaN` never matches, so a misread digit cannot pass.
    static func compare(_ got: [Fix], _ want: [Fix], _ label: String) {
        #expect(got.count == want.count, "\(label): \(got.count) fixes, \(want.count) expected")
        var differences: [String] = []
        for (i, (a, b)) in zip(got, want).enumerated() {
            func check<T: Equatable>(_ field: String, _ x: T?, _ y: T?) {
                if x != y {
                    differences.append(
                        "#\(i) \(field): \(x.map { "\($0)" } ?? "absent"), expected \(y.map { "\($0)" } ?? "absent")")
                }
            }
            check("time", a.time?.milliseconds, b.time?.milliseconds)
            check("lat", a.lat, b.lat)
            check("lon", a.lon, b.lon)
            check("alt", a.alt, b.alt)
            check("hacc", a.hacc, b.hacc)
            check("vacc", a.vacc, b.vacc)
            check("speed", a.speed, b.speed)
            check("course", a.course, b.course)
            check("hdop", a.hdop, b.hdop)
            check("sat", a.sat, b.sat)
            check("name", a.name, b.name)
            check("trace", a.trace, b.trace)
            check("seg", a.seg, b.seg)
        }
        #expect(
            differences.isEmpty,
            "\(label): \(differences.count) differences:\n  \(differences.prefix(10).joined(separator: "\n  "))")
    }

    @Test(
        "a producer's file: every fix as the truth gives it, whole and read in pieces", arguments: CSVFormatTests.styles
    )
    func generated(style: Style) throws {
        let truth = Self.truth(300, seed: UInt64(style.label.count))
        var text = style.header + style.lineEnd
        for (i, t) in truth.enumerated() {
            text += style.row(t, i) + style.lineEnd
            if i % 50 == 7 { text += style.lineEnd }  // blank lines are skipped
        }
        let (path, dir) = try Self.file("f.csv", Data(text.utf8))
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try Tools.run("gpx2fix", [path])
        #expect(run.status == 0 && run.stderr.isEmpty, "\(style.label): exit \(run.status): \(run.stderr.prefix(600))")
        let want = truth.enumerated().map { style.expected($1, $0) }
        Self.compare(try Self.decode(run.stdout), want, style.label)

        var g = FixGenerator(seed: 7)
        let pieces = try ChunkIndependenceTests.run(path, sizes: { _ in 1 + Int(g.nextUInt() % 37) })
        #expect(pieces.out == run.stdout, "\(style.label): the output differs when read in pieces of 1 to 37 bytes")
    }

    @Test("a cut row, bad cells and a row with no position: reported with their lines, the other rows kept")
    func badRows() throws {
        let text = [
            "time,lat,lon,ele,speed (km/h),name",  // 1
            "2024-06-15T10:30:00Z,52.5,13.4,34,36,\"two",  // 2: a name over two lines
            "lines\"",  // 3
            "2024-06-15T10:31:00Z,52.5x,13.4,34,36,b",  // 4: lat not a number
            "2024-06-15T10:32:00Z,95,13.4,34,36,c",  // 5: out of range
            "2024-06-15T10:33:00Z,52.5,13.4,34 furlongs,36,d",  // 6: not a unit of length
            "yesterday,52.5,13.4,34,36,e",  // 7: not a time
            ",,,,,",  // 8: nothing: skipped silently
            "2024-06-15T10:34:00Z,,,,5,sensor",  // 9: no position: counted
            "2024-06-15T10:35:00Z,52.5,13.4,35,36,f",  // 10
            "2024-06-15T10:36:00Z,52.5,13.",  // 11: cut
        ].joined(separator: "\r\n")
        let (path, dir) = try Self.file("bad.csv", Data(text.utf8))
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try Tools.run("gpx2fix", [path])
        #expect(run.status == 1)
        let fixes = try Self.decode(run.stdout)
        #expect(fixes.map(\.name) == ["two\r\nlines", "f"])
        #expect(fixes.map { $0.speed } == [10, 10])
        let expected = [
            "\(path):4: \"lat\" \"52.5x\" is not a latitude in degrees; row skipped",
            "\(path):5: lat 95, lon 13.4 are out of range (expected [-90, 90] and [-180, 180]); row skipped",
            "\(path):6: \"ele\" \"34 furlongs\" is not a number in a unit this reader knows; row skipped",
            "\(path):7: \"time\" \"yesterday\" is not a time; row skipped",
            "\(path):11: a cut row: 3 cells where the header names 6; row skipped",
            "\(path): 1 row without a position (sensor-only) skipped",
        ]
        #expect(
            run.stderr.split(separator: "\n").map { String($0).replacingOccurrences(of: "gpx2fix: ", with: "") }
                == expected)
        let strict = try Tools.run("gpx2fix", ["--strict", path])
        #expect(strict.status == 1 && strict.stderr.contains(":4:") && !strict.stderr.contains(":5:"))
    }

    @Test("numbers too big and times past year 9999: reported, never a trap")
    func outOfRange() throws {
        let text = "time_ms,lat,lon,ele\n1e30,1,2,3\n253402300800000,1,2,3\n5,1,2,1e999\n253402300799999,1,2,3\n"
        let run = try Tools.run("gpx2fix", [], stdin: Data(text.utf8))
        #expect(run.status == 1)
        #expect(run.out == "{\"time\":\"9999-12-31T23:59:59.999Z\",\"lat\":1,\"lon\":2,\"alt\":3,\"seg\":0}\n")
        #expect(
            run.stderr.split(separator: "\n") == [
                "gpx2fix: -:2: \"time_ms\" \"1e30\" is not a time RFC 3339 can write (years 0000 to 9999); row skipped",
                "gpx2fix: -:3: \"time_ms\" \"253402300800000\" is not a time RFC 3339 can write (years 0000 to 9999); row skipped",
                "gpx2fix: -:4: \"ele\" \"1e999\" is not a number; row skipped",
            ], "\(run.stderr)")
    }

    @Test("a quote never closed: the row is reported at its line once it passes 1 MiB, and reading goes on after it")
    func runawayQuote() throws {
        var text = "lat,lon\n1,2\n3,\"4\n"
        text += String(repeating: "5,6\n", count: 400_000)  // 1.6 MB inside the quote
        text += "7,8\n"
        let run = try Tools.run("gpx2fix", [], stdin: Data(text.utf8))
        #expect(run.status == 1)
        #expect(
            run.stderr == "gpx2fix: -:3: a row longer than 1 MiB (a quote not closed?); skipped\n",
            "\(run.stderr.prefix(500))")
        let fixes = try Self.decode(run.stdout)
        // The first fix, then the lines after the point where the row was given up.
        #expect(fixes.first.map { [$0.lat, $0.lon] } == [1, 2])
        #expect(fixes.last.map { [$0.lat, $0.lon] } == [7, 8])
        #expect(fixes.count > 100_000 && fixes.count < 400_000, "\(fixes.count)")
        // Where the row is given up does not depend on how the input is split into reads.
        let (path, dir) = try Self.file("q.csv", Data(text.utf8))
        defer { try? FileManager.default.removeItem(at: dir) }
        var g = FixGenerator(seed: 3)
        let whole = try ChunkIndependenceTests.run(path, sizes: nil)
        let pieces = try ChunkIndependenceTests.run(path, sizes: { _ in 1 + Int(g.nextUInt() % 9000) })
        #expect(try Self.decode(whole.out).count == fixes.count)
        #expect(pieces.out == whole.out && pieces.err == whole.err && pieces.status == 1)
    }

    @Test("local times: Lcl Date and Lcl Time minus the UTC offset column; without one, no times and a note")
    func localTimes() throws {
        let with = "Lcl Date, Lcl Time, UTCOfst, Latitude, Longitude\n2014-03-29, 16:50:22, -06:00, 40.2, -111.7\n"
        let without = "Lcl Date, Lcl Time, Latitude, Longitude\n2014-03-29, 16:50:22, 40.2, -111.7\n"
        let a = try Tools.run("gpx2fix", [], stdin: Data(with.utf8))
        #expect(a.out.hasPrefix("{\"time\":\"2014-03-29T22:50:22Z\",\"lat\":40.2,\"lon\":-111.7"), "\(a.out)")
        let b = try Tools.run("gpx2fix", [], stdin: Data(without.utf8))
        #expect(b.out == "{\"lat\":40.2,\"lon\":-111.7,\"seg\":0}\n")
        #expect(b.stderr.contains("no UTC offset column"))
    }

    @Test("an unknown unit in the header: reported once, the column ignored; --format csv on other data: reported")
    func headerProblems() throws {
        let a = try Tools.run("gpx2fix", [], stdin: Data("lat,lon,speed (furlongs/fortnight)\n1,2,3\n".utf8))
        #expect(a.out == "{\"lat\":1,\"lon\":2,\"seg\":0}\n")
        #expect(
            a.stderr
                == "gpx2fix: -:1: column \"speed (furlongs/fortnight)\": the unit is not one this reader knows; column ignored\n"
        )
        let b = try Tools.run("gpx2fix", ["--format", "csv"], stdin: Data("$GPGGA,1,2\n".utf8))
        #expect(b.status == 1 && b.out.isEmpty)
        #expect(b.stderr.contains("-:1: not CSV with a header naming latitude and longitude columns"), "\(b.stderr)")
    }

    // MARK: - Recognition

    static func recognize(_ s: String, complete: Bool = true) -> Recognition {
        CSVFormat.recognize(InputHead(bytes: Array(s.utf8), isComplete: complete))
    }

    @Test("recognition: a header naming latitude and longitude, after at most 8 '#' lines, decided on whole lines")
    func recognition() {
        for header in [
            "lat,lon", "Latitude;Longitude;Time", "time\tlng\tlat", "#time,trackpoint_type,latitude,longitude",
            "\"LATITUDE\",\"LONGITUDE\"", "x|Lat (deg)|Long", "INDEX,TAG,DATE,TIME,LATITUDE N/S,LONGITUDE E/W,HEIGHT",
            "#a\n#b, c\n  Lcl Date, Latitude,    Longitude",
        ] {
            #expect(Self.recognize(header + "\n") == .yes, "\(header)")
            #expect(Self.recognize(header, complete: false) == .needMore, "\(header): the line has not ended")
        }
        for other in [
            "$GPGGA,123519,4807.038,N", "lat", "lat,latitude", "name,ele\nlat,lon", "<gpx>", "{\"lat\":1,\"lon\":2}",
            "2015-08-24T05:55:07Z\t*\t{\"lat\":1,\"lon\":2}", String(repeating: "#\n", count: 9) + "lat,lon",
        ] {
            #expect(Self.recognize(other + "\n") == .no, "\(other)")
        }
    }

    @Test(
        "recognition is monotone and claims exactly the csv/ files of the corpus",
        .enabled(if: Tools.corpus != nil, Comment(rawValue: Tools.corpusMissing)))
    func corpusRecognition() throws {
        var stolen: [String] = []
        for file in ChunkIndependenceTests.files {
            let data = try Data(contentsOf: try #require(Tools.corpus).appendingPathComponent(file))
            var bytes = Array(data)
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
            bytes = Array(bytes.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }.prefix(InputHead.limit))
            let whole = CSVFormat.recognize(InputHead(bytes: bytes, isComplete: true))
            let isCSV = file.hasPrefix("csv/")
            if (whole == .yes) != isCSV { stolen.append("\(file): \(whole)") }
            // Every prefix answers .needMore or the whole head's answer.
            var n = 1
            while n < bytes.count {
                let r = CSVFormat.recognize(InputHead(bytes: Array(bytes[..<n]), isComplete: false))
                if r != .needMore && r != whole { stolen.append("\(file): \(r) at \(n) bytes, \(whole) for the head") }
                n += n < 64 ? 1 : n / 8
            }
            if isCSV {
                #expect(
                    InputFormats.decide(InputHead(bytes: bytes, isComplete: true)).map { ObjectIdentifier($0) }
                        == ObjectIdentifier(CSVFormat.self), "\(file)")
            }
        }
        #expect(stolen.isEmpty, "\(stolen.joined(separator: "\n"))")
    }

    // MARK: - Corpus

    static let files: [String] = {
        guard let corpus = Tools.corpus else { return [] }
        return ((try? FileManager.default.contentsOfDirectory(atPath: corpus.appendingPathComponent("csv").path)) ?? [])
            .sorted()
    }()

    static let oracle = Tools.packageRoot.appendingPathComponent("Tests/oracle/csv_oracle.py")

    /// The note each file gives, and why.
    static let notes: [String: String] = [
        // SEGMENT_START/END and IDLE rows, and TRACKPOINT rows from the heart-rate and cadence
        // sensors, have empty latitude and longitude cells.
        "opentracks__src__androidTest__res__raw__csv_export.csv": "7 rows without a position (sensor-only) skipped"
    ]
    // Agreed by design, with no message:
    // - iblue747 and mtk_logger_m241 (INDEX, RCR) and v900_basic_mode (INDEX, TAG) are the
    //   loggers' own layouts, whose SPEED is km/h; the MTK file also says so in its values.
    // - garmin_g1000: the header is the third line; the second ("#yyy-mm-dd, ..., ft msl, ...,
    //   kt") gives the units: AltMSL in feet, GndSpd in knots; TRK (track over ground) is the
    //   course, HDG (where the nose points) is not read. Lcl Date + Lcl Time - UTCOfst (+00:00).
    // - motoActv: timestamp_epoch counts milliseconds; SPEED is m/s, as the app writes it.

    @Test(
        "gpx2fix reads the file: exit 0, only the expected note, the oracle's fixes",
        .enabled(if: Tools.corpus != nil, Comment(rawValue: Tools.corpusMissing)),
        .enabled(if: CorpusGPXTests.python != nil, Comment(rawValue: CorpusGPXTests.pythonMissing)),
        arguments: CSVFormatTests.files)
    func sameFixesAsOracle(file: String) throws {
        let path = try #require(Tools.corpus).appendingPathComponent("csv/\(file)").path
        let tool = try Tools.run("gpx2fix", [path])
        #expect(tool.status == 0, "\(file): exit \(tool.status): \(tool.stderr.prefix(1000))")
        let oracle = try Tools.runExecutable(try #require(CorpusGPXTests.python), [Self.oracle.path, path])
        try #require(oracle.status == 0, "the oracle failed on \(file): \(oracle.stderr)")
        if let note = Self.notes[file] {
            #expect(tool.stderr == "gpx2fix: \(path): \(note)\n", "\(file): \(tool.stderr)")
            #expect(oracle.stderr == note + "\n")
        } else {
            #expect(tool.stderr.isEmpty, "\(file): \(tool.stderr.prefix(1000))")
            #expect(oracle.stderr.isEmpty, "\(file): the oracle: \(oracle.stderr.prefix(1000))")
        }
        #expect(!tool.out.isEmpty)
        try CorpusJSONTests.compare(tool.out, oracle.out, "csv/\(file)")
    }

    static let gpsbabel = Tools.which("gpsbabel")

    /// The corpus files GPSBabel reads: those in unicsv's style (a header line of names
    /// unicsv knows) with `-i unicsv`, and the V-900 and G1000 logs with its readers for them;
    /// and what GPSBabel reads differently, by design of one or the other.
    static let gpsbabelFiles: [String: (format: String, quirk: String)] = [
        "dawarich__spec__fixtures__files__csv__gpslogger.csv": ("unicsv,utc=0", ""),
        // SPEED is km/h in the logger's layout; unicsv takes it for m/s.
        "gpsbabel__reference__track__iblue747.csv": ("unicsv,utc=0", "speed km/h"),
        // unicsv reads the units in the values too.
        "gpsbabel__reference__track__mtk_logger_m241.csv": ("unicsv,utc=0", ""),
        // unicsv takes "altitude_gain" and "altitude_loss" (after "altitude") for the altitude,
        // and writes rows without a position at lat = lon = 1e25.
        "opentracks__src__androidTest__res__raw__csv_export.csv": ("unicsv,utc=0", "altitude"),
        // GPSBabel's own V-900 reader: the same fixes, SPEED as km/h.
        "gpsbabel__reference__v900_basic_mode.csv": ("v900", ""),
        // GPSBabel's G1000 reader takes the barometric AltB for the altitude; gpx2fix takes
        // AltMSL (the fix's alt is above mean sea level), 14 ft lower here. It writes no speed.
        "gpsbabel__reference__track__garmin_g1000.csv": ("garmin_g1000", "altitude"),
    ]

    @Test(
        "the files GPSBabel reads: the same fixes, to the digits it writes",
        .enabled(if: Tools.corpus != nil, Comment(rawValue: Tools.corpusMissing)),
        .enabled(
            if: CSVFormatTests.gpsbabel != nil,
            "gpsbabel is not on PATH: the comparison with GPSBabel's unicsv is skipped"),
        arguments: CSVFormatTests.gpsbabelFiles.keys.sorted())
    func sameAsGPSBabel(file: String) throws {
        let path = try #require(Tools.corpus).appendingPathComponent("csv/\(file)").path
        let (format, quirk) = try #require(Self.gpsbabelFiles[file])
        let babel = try Tools.runExecutable(
            try #require(Self.gpsbabel), ["-t", "-i", format, "-f", path, "-o", "unicsv,utc=0", "-F", "-"])
        try #require(babel.status == 0, "gpsbabel failed on \(file): \(babel.stderr)")
        // GPSBabel ends its lines with CR LF.
        var lines = babel.out.components(separatedBy: .newlines).filter { !$0.isEmpty }
        let names = lines.removeFirst().split(separator: ",").map(String.init)
        let rows = lines.map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
            .filter { Double($0[1]).map { abs($0) <= 90 } ?? false }  // 1e25: no position
        let mine = try Self.decode(try Tools.run("gpx2fix", [path]).stdout)
        #expect(mine.count == rows.count, "\(file): gpx2fix \(mine.count) fixes, gpsbabel \(rows.count)")
        var differences: [String] = []
        for (i, (fix, row)) in zip(mine, rows).enumerated() {
            func value(_ name: String) -> Double? {
                names.firstIndex(of: name).flatMap { $0 < row.count ? Double(row[$0]) : nil }
            }
            func near(_ name: String, _ mine: Double?, _ theirs: Double?, _ within: Double) {
                guard let theirs else { return }
                guard let mine, abs(mine - theirs) <= within else {
                    differences.append("#\(i) \(name): gpx2fix \(mine.map { "\($0)" } ?? "absent"), gpsbabel \(theirs)")
                    return
                }
            }
            near("lat", fix.lat, value("Latitude"), 5e-7)
            near("lon", fix.lon, value("Longitude"), 5e-7)
            if quirk != "altitude" { near("alt", fix.alt, value("Altitude"), 0.05 + 1e-9) }
            // unicsv writes m/s with two decimals.
            near("speed", fix.speed.map { quirk == "speed km/h" ? $0 * 3.6 : $0 }, value("Speed"), 0.005 + 1e-9)
            near("course", fix.course, value("Course"), 0.05 + 1e-9)
            near("hdop", fix.hdop, value("HDOP"), 0.005 + 1e-9)
            near("sat", fix.sat.map(Double.init), value("Satellites"), 0)
            if let di = names.firstIndex(of: "Date"), let ti = names.firstIndex(of: "Time"),
                let t = Timestamp.parse(row[di].replacingOccurrences(of: "/", with: "-") + "T" + row[ti] + "Z")
            {
                // unicsv writes whole seconds.
                near("time", fix.time.map { Double($0.milliseconds / 1000) }, Double(t.milliseconds / 1000), 0)
            }
        }
        #expect(
            differences.isEmpty,
            "\(file): \(differences.count) differences:\n  \(differences.prefix(10).joined(separator: "\n  "))")
    }

    /// `ByteRuns.lineEnd`, with which the reader skips a row too long to keep, finds
    /// the first LF or CR as a byte-by-byte search does: on 3,000 random buffers of bytes
    /// (line ends rare or absent, and bytes next to them in value), from random starts.
    @Test func lineEndFindsTheFirstLFOrCR() {
        var g = FixGenerator(seed: 23)
        let alphabet: [UInt8] = [0x00, 0x09, 0x0B, 0x0C, 0x0E, 0x8A, 0x8D, 0xFF, 0x2C, 0x22, 0x41]
        for _ in 0..<3_000 {
            var bytes = (0..<Int(g.nextUInt() % 100)).map { _ in g.pick(alphabet) }
            for _ in 0..<Int(g.nextUInt() % 3) where !bytes.isEmpty {
                bytes[Int(g.nextUInt() % UInt64(bytes.count))] = g.chance(0.5) ? 0x0A : 0x0D
            }
            let from = bytes.isEmpty ? 0 : Int(g.nextUInt() % UInt64(bytes.count + 1))
            let to = from + Int(g.nextUInt() % UInt64(bytes.count - from + 1))
            let expected = (from..<to).first { bytes[$0] == 0x0A || bytes[$0] == 0x0D } ?? to
            let got = bytes.withUnsafeBufferPointer { p in
                p.baseAddress.map { ByteRuns.lineEnd($0, from: from, to: to) } ?? to
            }
            #expect(got == expected, "\(bytes) from \(from) to \(to)")
        }
    }
}
