import Foundation
import Testing

@testable import FixKit

/// gpx2fix on FIT files written from a known truth by `FITWriter` (from the FIT protocol, not
/// from the reader): every record style (little- and big-endian definitions, normal and
/// compressed-timestamp headers with the 5-bit rollover, developer fields, local types 0-15
/// redefined, plain and enhanced fields, invalid values), timer stops, chained files, CRCs,
/// broken definitions, and the file cut at every byte.
///
/// The truth is the list of values the writer was given: each expected fix is computed from
/// them by the FIT profile's formulas (degrees = semicircles x 180 / 2^31, altitude / 5 - 500
/// as (altitude - 2500) / 5, speed / 1000), and is compared exactly; the position is also checked against the degrees
/// the generator started from, to within half a semicircle (4.2e-8 degrees). Where fitdecode
/// or Garmin's SDK is installed, `Tests/oracle/fit_oracle.py` must read the same fixes too,
/// which checks the writer as much as the reader.
@Suite("FIT: generated files")
struct FITGeneratedTests {
    typealias Field = FITWriter.Field
    static let semicircle = 180.0 / 2_147_483_648.0
    /// 2024-05-12T22:00:00Z in FIT seconds (since 1989-12-31T00:00:00Z).
    static let start: UInt32 = 1_715_551_200 - 631_065_600

    /// A ride written in many styles, with the fixes it must give.
    struct Ride {
        var writer = FITWriter()
        var expected: [[String: Any]] = []
        /// For each fix, the byte offset (in the data, after the header) where its message ends.
        var fixEnds: [Int] = []
        var degrees: [(Double, Double)] = []
    }

    /// Writes `count` records of a seeded ride. Blocks of 5 to 30 records each take one
    /// style: a local type (0-15, or 0-3 for compressed headers), a byte order, a header kind,
    /// plain or enhanced altitude and speed, with or without developer fields. Between blocks,
    /// a timer stop (stop or stop_all) and start now and then.
    static func ride(seed: UInt64, count: Int, trace: String) -> Ride {
        var g = FixGenerator(seed: seed)
        var r = Ride()
        var w = FITWriter()
        w.define(local: 0, global: 0, FITWriter.fileID)
        w.message(local: 0, [4, 1])
        // A developer field: developer_data_id (207) then field_description (206).
        w.define(local: 1, global: 207, [Field(number: 3, size: 1, type: 0x02)])
        w.message(local: 1, [0])
        w.define(
            local: 1, global: 206,
            [
                Field(number: 0, size: 1, type: 0x02), Field(number: 1, size: 1, type: 0x02),
                Field(number: 2, size: 1, type: 0x02),
            ])
        w.message(local: 1, [0, 0, 0x84])  // developer index 0, field 0, uint16
        var time = start
        var seg = 0
        var segHasFix = false
        var pendingStop = false
        var lat = 45.76, lon = 4.84
        var written = 0
        while written < count {
            let compressed = g.chance(0.4)
            let local = compressed ? Int(g.nextUInt() % 4) : Int(g.nextUInt() % 16)
            let bigEndian = g.chance(0.5)
            let enhanced = g.chance(0.5)
            let developer = g.chance(0.4)
            let withAccuracy = g.chance(0.5)
            var fields: [Field] = []
            if !compressed { fields.append(Field(number: 253, size: 4, type: 0x86)) }
            fields += [Field(number: 0, size: 4, type: 0x85), Field(number: 1, size: 4, type: 0x85)]
            fields += [Field(number: 2, size: 2, type: 0x84), Field(number: 6, size: 2, type: 0x84)]
            if enhanced { fields += [Field(number: 78, size: 4, type: 0x86), Field(number: 73, size: 4, type: 0x86)] }
            if withAccuracy { fields.append(Field(number: 31, size: 1, type: 0x02)) }
            fields.append(Field(number: 3, size: 1, type: 0x02))  // heart_rate, not read
            // A compressed block needs a full timestamp before it: an event carries one.
            if compressed {
                w.define(local: 0, global: 21, bigEndian: g.chance(0.5), FITWriter.event)
                time += UInt32(1 + g.nextUInt() % 100)
                w.message(local: 0, [UInt64(time), 3, 3])  // event 3 (workout), marker: not a stop
            }
            w.define(local: local, global: 20, bigEndian: bigEndian, fields, developer: developer ? [(0, 2, 0)] : [])
            for _ in 0..<min(count - written, 5 + Int(g.nextUInt() % 26)) {
                let step = UInt32(compressed ? 1 + g.nextUInt() % 9 : 1 + g.nextUInt() % 40)
                time += step
                lat += (g.unit() - 0.5) * 1e-3
                lon += (g.unit() - 0.5) * 1e-3
                let latS = Int32((lat / semicircle).rounded()), lonS = Int32((lon / semicircle).rounded())
                let noPosition = g.chance(0.05)
                // With enhanced fields, the plain ones hold the same value where it fits in 16
                // bits (as Garmin devices write them), else their invalid value.
                let enhAltRaw: UInt64 = g.chance(0.1) ? 0xFFFF_FFFF : UInt64(2500 + g.nextUInt() % 70000)
                let enhSpeedRaw: UInt64 = g.chance(0.1) ? 0xFFFF_FFFF : g.nextUInt() % 70000
                let altRaw: UInt64 =
                    enhanced
                    ? (enhAltRaw < 0xFFFF ? enhAltRaw : 0xFFFF)
                    : g.chance(0.1) ? 0xFFFF : UInt64(2500 + g.nextUInt() % 3000)
                let speedRaw: UInt64 =
                    enhanced
                    ? (enhSpeedRaw < 0xFFFF ? enhSpeedRaw : 0xFFFF) : g.chance(0.1) ? 0xFFFF : g.nextUInt() % 20000
                let accRaw: UInt64 = g.chance(0.1) ? 0xFF : g.nextUInt() % 50
                var values: [UInt64] = []
                if !compressed { values.append(UInt64(time)) }
                values +=
                    noPosition
                    ? [0x7FFF_FFFF, UInt64(UInt32(bitPattern: lonS))]
                    : [UInt64(UInt32(bitPattern: latS)), UInt64(UInt32(bitPattern: lonS))]
                values += [altRaw, speedRaw]
                if enhanced { values += [enhAltRaw, enhSpeedRaw] }
                if withAccuracy { values.append(accRaw) }
                values.append(UInt64(100 + g.nextUInt() % 80))
                w.message(
                    local: local, values, developerBytes: developer ? [UInt8(g.nextUInt() & 0xFF), 1] : [],
                    compressedTime: compressed ? UInt8(time & 0x1F) : nil)
                written += 1
                guard !noPosition else { continue }
                if pendingStop {
                    seg += 1
                    pendingStop = false
                }
                var fix: [String: Any] = [
                    "time": Timestamp(milliseconds: (Int64(time) + 631_065_600) * 1000).rfc3339,
                    "lat": Double(latS) * 180 / 2_147_483_648, "lon": Double(lonS) * 180 / 2_147_483_648,
                    "trace": trace, "seg": seg,
                ]
                if enhanced && enhAltRaw != 0xFFFF_FFFF {
                    fix["alt"] = (Double(enhAltRaw) - 2500) / 5
                } else if altRaw != 0xFFFF {
                    fix["alt"] = (Double(altRaw) - 2500) / 5
                }
                if enhanced && enhSpeedRaw != 0xFFFF_FFFF {
                    fix["speed"] = Double(enhSpeedRaw) / 1000
                } else if speedRaw != 0xFFFF {
                    fix["speed"] = Double(speedRaw) / 1000
                }
                if withAccuracy && accRaw != 0xFF { fix["hacc"] = Double(accRaw) }
                r.expected.append(fix)
                r.fixEnds.append(w.data.count)
                r.degrees.append((lat, lon))
                segHasFix = true
            }
            if g.chance(0.3) {
                let local = Int(g.nextUInt() % 16)
                w.define(local: local, global: 21, bigEndian: g.chance(0.5), FITWriter.event)
                time += 1
                w.message(local: local, [UInt64(time), 0, g.chance(0.5) ? 4 : 1])  // timer stop_all / stop
                time += UInt32(g.nextUInt() % 600)
                w.message(local: local, [UInt64(time), 0, 0])  // timer start
                if segHasFix {
                    pendingStop = true
                    segHasFix = false
                }
            }
        }
        r.writer = w
        return r
    }

    /// Writes `bytes` to a temporary file named `name`, runs gpx2fix on it, and removes it.
    static func run(_ bytes: [UInt8], name: String = "ride.fit", _ arguments: [String] = []) throws -> Tools.Result {
        let dir = TestScratch.root.appendingPathComponent("fixkit-fit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return try Tools.run("gpx2fix", arguments + [url.path])
    }

    /// The fixes gpx2fix (or the oracle) wrote, their numbers read exactly (`Double(text)`
    /// rounds correctly; JSONSerialization's decimal numbers do not always).
    static func objects(_ data: Data) throws -> [[String: Any]] {
        try CorpusGPXTests.fixes(String(decoding: data, as: UTF8.self), who: "output", file: "-").map { fix in
            var o: [String: Any] = [:]
            for (k, v) in fix.fields {
                switch v {
                case .string(let s): o[k] = s
                case .number(let n), .other(let n): o[k] = k == "seg" ? Int(n) ?? -1 : Double(n) ?? .nan
                }
            }
            return o
        }
    }

    /// Compares fixes by value: numbers exactly (alt to `altTolerance` metres), strings and
    /// integers exactly.
    static func expectSame(
        _ got: [[String: Any]], _ expected: [[String: Any]], _ what: String, altTolerance: Double = 0
    ) {
        #expect(got.count == expected.count, "\(what): \(got.count) fixes, expected \(expected.count)")
        for (i, (a, b)) in zip(got, expected).enumerated() {
            #expect(Set(a.keys) == Set(b.keys), "\(what) fix #\(i): members \(a.keys.sorted()) vs \(b.keys.sorted())")
            for (k, v) in b {
                let same: Bool
                if let x = a[k] as? Double, let y = v as? Double {
                    same = k == "alt" ? abs(x - y) <= altTolerance : x == y
                } else {
                    same = "\(a[k] ?? "absent")" == "\(v)"
                }
                if !same {
                    Issue.record("\(what) fix #\(i) \(k): \(a[k] ?? "absent"), expected \(v)")
                    return
                }
            }
        }
    }

    @Test("a ride in every record style gives exactly the fixes written", arguments: [1, 2, 3, 4] as [UInt64])
    func everyStyle(seed: UInt64) throws {
        let ride = Self.ride(seed: seed, count: 400, trace: "ride.fit")
        let result = try Self.run(ride.writer.file())
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        let got = try Self.objects(result.stdout)
        Self.expectSame(got, ride.expected, "seed \(seed)")
        for (fix, (lat, lon)) in zip(got, ride.degrees) {
            let la = (fix["lat"] as? Double) ?? .nan, lo = (fix["lon"] as? Double) ?? .nan
            #expect(abs(la - lat) <= Self.semicircle / 2 && abs(lo - lon) <= Self.semicircle / 2)
        }
        // The generator's styles all occur: segments, compressed headers, fixes without alt.
        #expect(Set(ride.expected.compactMap { $0["seg"] as? Int }).count > 1)
        #expect(ride.expected.contains { $0["alt"] == nil } && ride.expected.contains { $0["hacc"] != nil })
    }

    @Test(
        "enhanced_altitude and enhanced_speed win over altitude and speed; each falls back on the plain field when invalid"
    )
    func enhancedPreferred() throws {
        var w = FITWriter()
        w.define(
            local: 0, global: 20,
            [
                Field(number: 0, size: 4, type: 0x85), Field(number: 1, size: 4, type: 0x85),
                Field(number: 2, size: 2, type: 0x84),
                Field(number: 6, size: 2, type: 0x84), Field(number: 78, size: 4, type: 0x86),
                Field(number: 73, size: 4, type: 0x86),
            ])
        w.message(local: 0, [1000, 2000, 3000, 4000, 100_000, 20_000])  // alt 19500, speed 20: the enhanced ones
        w.message(local: 0, [1000, 2000, 3000, 4000, 0xFFFF_FFFF, 0xFFFF_FFFF])  // alt 100, speed 4: the plain ones
        w.message(local: 0, [1000, 2000, 0xFFFF, 0xFFFF, 0xFFFF_FFFF, 0xFFFF_FFFF])  // neither
        let fixes = try Self.objects(try Self.run(w.file()).stdout)
        #expect(fixes.map { $0["alt"] as? Double } == [19_500, 100, nil])
        #expect(fixes.map { $0["speed"] as? Double } == [20, 4, nil])
    }

    @Test("compressed timestamps roll over: offsets below the last timestamp's low 5 bits add 32 s")
    func compressedRollover() throws {
        var w = FITWriter()
        w.define(local: 0, global: 21, FITWriter.event)
        let t0: UInt32 = Self.start + 29  // low 5 bits 29 (start's are 0)
        w.message(local: 0, [UInt64(t0), 3, 3])
        w.define(local: 1, global: 20, [Field(number: 0, size: 4, type: 0x85), Field(number: 1, size: 4, type: 0x85)])
        // Offsets 30, 31, 2 (rolled over: +32), 2 again (same second), 1 (rolled over again).
        let offsets: [UInt8] = [30, 31, 2, 2, 1]
        let expected: [UInt32] = [t0 + 1, t0 + 2, t0 + 5, t0 + 5, t0 + 36]
        for o in offsets { w.message(local: 1, [1000, 2000], compressedTime: o) }
        let result = try Self.run(w.file())
        #expect(result.status == 0, "\(result.stderr)")
        let times = try Self.objects(result.stdout).map { $0["time"] as? String }
        #expect(times == expected.map { Timestamp(milliseconds: (Int64($0) + 631_065_600) * 1000).rfc3339 })
    }

    @Test("a compressed timestamp before any full one gives a fix without time")
    func compressedWithoutReference() throws {
        var w = FITWriter()
        w.define(local: 1, global: 20, [Field(number: 0, size: 4, type: 0x85), Field(number: 1, size: 4, type: 0x85)])
        w.message(local: 1, [1000, 2000], compressedTime: 3)
        let result = try Self.run(w.file())
        #expect(result.status == 0)
        #expect(try Self.objects(result.stdout).map { $0["time"] == nil } == [true])
    }

    @Test("chained files: each is read, a new seg for each; a 12-byte header; timestamps do not carry over")
    func chained() throws {
        let a = Self.ride(seed: 10, count: 40, trace: "chain.fit")
        let b = Self.ride(seed: 11, count: 40, trace: "chain.fit")
        let c = Self.ride(seed: 12, count: 40, trace: "chain.fit")
        let bytes = a.writer.file() + b.writer.file(headerSize: 12) + c.writer.file()
        let result = try Self.run(bytes, name: "chain.fit")
        #expect(result.status == 0, "\(result.stderr)")
        var expected: [[String: Any]] = []
        var segBase = 0
        for part in [a, b, c] {
            let segs = part.expected.compactMap { $0["seg"] as? Int }
            for var fix in part.expected {
                fix["seg"] = segBase + ((fix["seg"] as? Int) ?? 0)
                expected.append(fix)
            }
            segBase += (segs.max() ?? -1) + 1
        }
        Self.expectSame(try Self.objects(result.stdout), expected, "chained")
    }

    @Test("a file cut at every byte gives the fixes of the messages before the cut, then an error naming the byte")
    func cutAtEveryByte() throws {
        let ride = Self.ride(seed: 7, count: 12, trace: "cut.fit")
        let full = ride.writer.file()
        let whole = try Self.run(full, name: "cut.fit")
        #expect(whole.status == 0, "\(whole.stderr)")
        let lines = whole.lines
        #expect(lines.count == ride.expected.count)
        for length in 0..<full.count {
            let result = try Self.run(Array(full.prefix(length)), name: "cut.fit")
            #expect(
                !result.stderr.contains("Fatal error") && result.status == 1,
                "cut at \(length): \(result.status) \(result.stderr)")
            // Fixes whose message ends by the cut (the header is 14 bytes).
            let complete = ride.fixEnds.filter { 14 + $0 <= length }.count
            #expect(
                result.lines == Array(lines.prefix(complete)),
                "cut at \(length): \(result.lines.count) fixes, expected \(complete)")
            if length >= 12 {
                #expect(
                    result.stderr.contains("cut.fit: byte \(length): the input ends")
                        && result.stderr.contains("truncated"),
                    "cut at \(length): \(result.stderr)")
            } else {
                #expect(!result.stderr.isEmpty)
            }
        }
    }

    @Test(
        "a bad header CRC and a bad file CRC are reported after every fix is written; a header CRC of 0 is not checked")
    func crcs() throws {
        let ride = Self.ride(seed: 5, count: 30, trace: "crc.fit")
        let good = ride.writer.file()
        let storedHeader = UInt16(good[12]) | UInt16(good[13]) << 8
        for strict in [false, true] {
            let args = strict ? ["--strict"] : []
            let badHeader = try Self.run(ride.writer.file(headerCRC: storedHeader ^ 1), name: "crc.fit", args)
            #expect(badHeader.status == 1)
            #expect(badHeader.lines.count == ride.expected.count)
            #expect(badHeader.stderr.contains("crc.fit: byte 12: the header's CRC is"), "\(badHeader.stderr)")
            let stored = FITWriter.crc(Array(good.dropLast(2)))
            let badFile = try Self.run(ride.writer.file(fileCRC: stored ^ 0x8000), name: "crc.fit", args)
            #expect(badFile.status == 1)
            #expect(badFile.lines.count == ride.expected.count)
            #expect(badFile.stderr.contains("crc.fit: byte \(good.count - 2): the file's CRC is"), "\(badFile.stderr)")
        }
        let noHeaderCRC = try Self.run(ride.writer.file(headerCRC: 0), name: "crc.fit")
        #expect(noHeaderCRC.status == 0, "\(noHeaderCRC.stderr)")
    }

    @Test("a definition whose field size does not fit its base type: not trusted, and reported")
    func misfitDefinitions() throws {
        var w = FITWriter()
        // position_lat as 3 bytes of sint32: the field is left out, so no record gives a fix.
        w.define(
            local: 2, global: 20,
            [
                Field(number: 253, size: 4, type: 0x86), Field(number: 0, size: 3, type: 0x85),
                Field(number: 1, size: 4, type: 0x85),
            ])
        w.message(local: 2, [UInt64(Self.start), 1000, 2000])
        // heart_rate as 3 bytes of uint16 (not read): a note, and the fix is written.
        w.define(
            local: 3, global: 20,
            [
                Field(number: 0, size: 4, type: 0x85), Field(number: 1, size: 4, type: 0x85),
                Field(number: 3, size: 3, type: 0x84),
            ])
        w.message(local: 3, [1000, 2000, 7])
        let result = try Self.run(w.file(), name: "misfit.fit")
        #expect(result.status == 1)
        #expect(result.lines.count == 1)
        #expect(
            result.stderr.contains(
                "byte 14: the definition of local type 2, record message (global 20), is not trusted where its field 0 is 3 bytes of sint32 (4 bytes a value)"
            ), "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "1 definition message gives a field a size that does not fit its base type (record message (global 20) field 3 is 3 bytes of uint16"
            ), "\(result.stderr)")
    }

    @Test(
        "an undefined local type, or a definition with an architecture byte other than 0 or 1, stops the reading there")
    func framingLost() throws {
        for broken in [[0x05, 1, 2, 3] as [UInt8], [0x41, 0, 2, 20, 0, 0]] {
            var w = FITWriter()
            w.define(
                local: 0, global: 20, [Field(number: 0, size: 4, type: 0x85), Field(number: 1, size: 4, type: 0x85)])
            w.message(local: 0, [1000, 2000])
            let at = 14 + w.data.count
            w.raw(broken)
            w.message(local: 0, [1000, 2000])
            let result = try Self.run(w.file(), name: "lost.fit")
            #expect(result.status == 1)
            #expect(result.lines.count == 1)
            #expect(
                result.stderr.contains("lost.fit: byte \(at): ") && result.stderr.contains("reading stops"),
                "\(result.stderr)")
        }
    }

    @Test(
        "device time (below 0x10000000) gives no time; a position out of range gives no fix; a record without one neither"
    )
    func oddValues() throws {
        var w = FITWriter()
        let fields = [
            Field(number: 253, size: 4, type: 0x86), Field(number: 0, size: 4, type: 0x85),
            Field(number: 1, size: 4, type: 0x85),
        ]
        w.define(local: 0, global: 20, fields)
        w.message(local: 0, [1000, 1000, 2000])  // device time
        w.message(local: 0, [UInt64(Self.start), UInt64(1 << 30 + 5), 2000])  // lat just past 90
        w.message(local: 0, [UInt64(Self.start), 0x7FFF_FFFF, 2000])  // no position: silently none
        w.message(
            local: 0,
            [UInt64(Self.start), UInt64(UInt32(bitPattern: -(1 << 30))), UInt64(UInt32(bitPattern: Int32.min))])  // -90, -180
        let result = try Self.run(w.file(), name: "odd.fit")
        #expect(result.status == 1)
        let fixes = try Self.objects(result.stdout)
        #expect(fixes.count == 2)
        #expect(fixes.first?["time"] == nil)
        #expect((fixes.last?["lat"] as? Double) == -90 && (fixes.last?["lon"] as? Double) == -180)
        #expect(result.stderr.contains("odd.fit: byte 42: a record's position_lat 1073741829"), "\(result.stderr)")
        #expect(result.stderr.contains("1 fix has a timestamp below 0x10000000"), "\(result.stderr)")
    }

    @Test(
        "bytes after the last file that are not a FIT header are reported; --format fit on other input says what came")
    func trailingAndForced() throws {
        let ride = Self.ride(seed: 3, count: 10, trace: "tail.fit")
        let file = ride.writer.file()
        let result = try Self.run(file + [0, 0, 0], name: "tail.fit")
        #expect(result.status == 1)
        #expect(result.lines.count == ride.expected.count)
        #expect(
            result.stderr.contains("tail.fit: byte \(file.count): 3 bytes after the end of the FIT data"),
            "\(result.stderr)")
        let text = try Self.run(Array("hello, world\n".utf8), name: "x.fit", ["--format", "fit"])
        #expect(text.status == 1)
        #expect(
            text.stderr.contains("x.fit: byte 0: not a FIT file: it starts with \"hello, world\""), "\(text.stderr)")
    }

    @Test(
        "a gzip-compressed FIT file reads as the file itself, its trace without .gz",
        .enabled(if: Tools.which("gzip") != nil))
    func gzip() throws {
        let ride = Self.ride(seed: 8, count: 50, trace: "ride.fit")
        let dir = TestScratch.root.appendingPathComponent("fixkit-fitgz-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("ride.fit")
        try Data(ride.writer.file()).write(to: url)
        let result = try Tools.shell("gzip '\(url.path)' && gpx2fix '\(url.path).gz'")
        #expect(result.status == 0, "\(result.stderr)")
        Self.expectSame(try Self.objects(result.stdout), ride.expected, "gzip")
    }

    static let python = Tools.which("python3")
    static let oracle = Tools.packageRoot.appendingPathComponent("Tests/oracle/fit_oracle.py")
    static let fitdecodeAvailable: Bool = {
        guard let python else { return false }
        return (try? Tools.runExecutable(python, ["-c", "import fitdecode"]))?.status == 0
    }()

    @Test(
        "fitdecode reads the generated rides and chained files as gpx2fix does",
        .enabled(
            if: FITGeneratedTests.fitdecodeAvailable, "fitdecode is not installed (pip install fitdecode): skipped"),
        arguments: [1, 2, 3] as [UInt64])
    func sameAsFitdecode(seed: UInt64) throws {
        let a = Self.ride(seed: seed, count: 300, trace: "gen.fit"),
            b = Self.ride(seed: seed + 100, count: 50, trace: "gen.fit")
        let dir = TestScratch.root.appendingPathComponent("fixkit-fitoracle-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("gen.fit")
        try Data(a.writer.file() + b.writer.file(headerSize: 12)).write(to: url)
        let mine = try Tools.run("gpx2fix", [url.path])
        let theirs = try Tools.runExecutable(
            try #require(Self.python), [Self.oracle.path, "--reader", "fitdecode", url.path])
        #expect(mine.status == 0 && theirs.status == 0, "\(mine.stderr) \(theirs.stderr)")
        // alt to 1e-9 m: fitdecode computes altitude / 5 - 500 (two roundings), gpx2fix
        // (altitude - 2500) / 5 (one); they differ in the last bit or two.
        Self.expectSame(
            try Self.objects(mine.stdout), try Self.objects(theirs.stdout), "fitdecode, seed \(seed)",
            altTolerance: 1e-9)
    }
}

@Suite("FIT: CRC, header, recognition")
struct FITUnitTests {
    @Test("the CRC is CRC-16/ARC: \"123456789\" gives 0xBB3D; the byte table agrees with the nibble steps")
    func crc() {
        #expect(FITCRC.of(Array("123456789".utf8)) == 0xBB3D)
        var g = FixGenerator(seed: 9)
        for n in [0, 1, 2, 7, 100, 1000] {
            let bytes = (0..<n).map { _ in UInt8(truncatingIfNeeded: g.nextUInt()) }
            var c = FITCRC()
            bytes.withUnsafeBufferPointer { c.update($0.baseAddress!, count: n) }
            #expect(c.value == FITCRC.of(bytes))
            #expect(c.value == FITWriter.crc(bytes))
            // In two parts, split anywhere: the four-byte steps restart at each call.
            for cut in [0, 1, 3, n / 2, n] where cut <= n {
                var split = FITCRC()
                bytes.withUnsafeBufferPointer { b in
                    split.update(b.baseAddress!, count: cut)
                    split.update(b.baseAddress! + cut, count: n - cut)
                }
                #expect(split.value == c.value, "n \(n), cut at \(cut)")
            }
        }
    }

    @Test("recognised by the header alone: byte 0 is 12 or 14 and bytes 8-11 are .FIT")
    func recognize() {
        let header = FITWriter().file()
        #expect(FITFormat.recognize(InputHead(bytes: header, isComplete: true)) == .yes)
        #expect(FITFormat.recognize(InputHead(bytes: Array(header.prefix(11)), isComplete: false)) == .needMore)
        #expect(FITFormat.recognize(InputHead(bytes: Array(header.prefix(11)), isComplete: true)) == .no)
        #expect(FITFormat.recognize(InputHead(bytes: FITWriter().file(headerSize: 12), isComplete: true)) == .yes)
        var other = header
        other[0] = 13
        #expect(FITFormat.recognize(InputHead(bytes: other, isComplete: true)) == .no)
        other = header
        other[9] = UInt8(ascii: "f")
        #expect(FITFormat.recognize(InputHead(bytes: other, isComplete: true)) == .no)
        #expect(FITFormat.recognize(InputHead(bytes: Array("<gpx>".utf8), isComplete: true)) == .no)
        #expect(InputFormats.all.first.map { $0.name } == "fit")
    }

    @Test("invalid values per base type mean absent")
    func invalidValues() {
        let cases: [(UInt8, [UInt8], Double?)] = [
            (0x85, [0xFF, 0xFF, 0xFF, 0x7F], nil), (0x85, [0xFE, 0xFF, 0xFF, 0x7F], 2_147_483_646),
            (0x85, [0, 0, 0, 0x80], -2_147_483_648), (0x84, [0xFF, 0xFF], nil), (0x84, [0xFE, 0xFF], 65534),
            (0x86, [0xFF, 0xFF, 0xFF, 0xFF], nil), (0x02, [0xFF], nil), (0x02, [0], 0), (0x8B, [0, 0], nil),
            (0x83, [0xFF, 0x7F], nil), (0x83, [0xFF, 0xFF], -1), (0x88, [0xFF, 0xFF, 0xFF, 0xFF], nil),
            (0x88, [0, 0, 0x80, 0x3F], 1),
        ]
        for (typeByte, bytes, expected) in cases {
            let ref = FITFieldRef(offset: 0, type: FITBaseType(byte: typeByte)!, bigEndian: false)
            let big = FITFieldRef(offset: 0, type: FITBaseType(byte: typeByte)!, bigEndian: true)
            bytes.withUnsafeBufferPointer {
                #expect(ref.value($0.baseAddress!) == expected, "0x\(String(typeByte, radix: 16)) \(bytes)")
            }
            Array(bytes.reversed()).withUnsafeBufferPointer { #expect(big.value($0.baseAddress!) == expected) }
        }
    }
}
