import Foundation
import Testing

@testable import FixKit

/// The four epoch rules found by comparing gpx2fix with gpsd's regression logs and
/// GPSBabel's reference conversions (issue 9): a sentence one epoch late joins its epoch, a
/// garbled RMC date keeps the position, GGA quality 7 and 8 are skipped and counted, and the
/// more precise of two positions wins. Each is shown on a small made-up log and on the
/// corpus file where it was found.
@Suite("NMEA epoch rules")
struct NMEAEpochRulesTests {
    /// `*hh` appended to each sentence, one a line.
    static func log(_ sentences: [String]) -> Data {
        Data(
            sentences.map { s in s + "*" + String(format: "%02X", s.utf8.dropFirst().reduce(UInt8(0), ^)) + "\r\n" }
                .joined().utf8)
    }

    static func gpx2fix(_ sentences: [String], _ options: [String] = []) throws -> (
        fixes: [[String: Any]], stderr: String
    ) {
        let result = try Tools.run("gpx2fix", options, stdin: log(sentences))
        #expect(result.status == 0, "\(result.stderr)")
        return (try Tools.objects(result.stdout), result.stderr)
    }

    static func corpus(_ name: String) throws -> (fixes: [[String: Any]], stderr: String) {
        let path = try #require(Tools.corpus).appendingPathComponent("nmea/\(name)").path
        let result = try Tools.run("gpx2fix", [path])
        #expect(result.status == 0, "\(result.stderr)")
        return (try Tools.objects(result.stdout), result.stderr)
    }

    // MARK: past the end of 9999

    /// An epoch past 9999-12-31T23:59:59.999Z has a time RFC 3339 cannot write: the fix is
    /// skipped with a message, at the line that closed its epoch; those the input's end closes
    /// are at the line of its last sentence (not the one after it), whatever follows that
    /// sentence: a line end, nothing, NUL padding or blank lines.
    @Test(
        "epochs past the year 9999 are skipped, each said at a line of the input",
        arguments: ["\r\n", "", "\0\0", "\n\n"])
    func pastTheLastWritableTime(_ lastEnd: String) throws {
        var input = Self.log(
            ["235958", "235959", "000000", "000001"].map {
                "$GPGGA,\($0).00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"
            })
        input.removeLast(2)
        input.append(contentsOf: lastEnd.utf8)
        let result = try Tools.run("gpx2fix", ["--date", "9999-12-31"], stdin: input)
        #expect(result.status == 1)
        let times = try Tools.objects(result.stdout).map { $0["time"] as? String }
        #expect(times == ["9999-12-31T23:59:58Z", "9999-12-31T23:59:59Z"])
        let said = result.stderr.split(separator: "\n").filter { $0.contains("past 9999-12-31T23:59:59.999Z") }
        #expect(said.count == 2, "\(result.stderr)")
        #expect(said.allSatisfy { $0.hasPrefix("gpx2fix: -:4: ") }, "\(result.stderr)")
    }

    // MARK: one epoch late

    @Test("a sentence that comes after one of the next epoch still joins its epoch")
    func lateSentenceJoins() throws {
        let (fixes, _) = try Self.gpx2fix([
            "$GPRMC,093158.250,A,5333.4037,N,00951.9347,E,0.24,181.89,170807,,,A",
            "$GPGGA,093158.250,5333.4037,N,00951.9347,E,1,06,1.7,48.4,M,46.0,M,,0000",
            "$GPRMC,093158.500,A,5333.4037,N,00951.9347,E,0.09,180.87,170807,,,A",
            "$GPRMC,093158.000,A,5333.4037,N,00951.9346,E,0.28,175.83,170807,,,A",
            "$GPGGA,093158.000,5333.4037,N,00951.9346,E,1,06,1.7,48.4,M,46.0,M,,0000",
            "$GPGGA,093158.500,5333.4037,N,00951.9347,E,1,06,1.7,48.5,M,46.0,M,,0000",
            "$GPRMC,093158.750,A,5333.4037,N,00951.9348,E,0.17,179.45,170807,,,A",
        ])
        let times = fixes.map { $0["time"] as? String ?? "" }
        #expect(
            times == [
                "2007-08-17T09:31:58.250Z", "2007-08-17T09:31:58.500Z", "2007-08-17T09:31:58Z",
                "2007-08-17T09:31:58.750Z",
            ])
        // The 58.500 fix has its RMC's speed and its late GGA's altitude and satellites.
        let late = try #require(fixes.first { $0["time"] as? String == "2007-08-17T09:31:58.500Z" })
        #expect(late["alt"] as? Double == 48.5)
        #expect(late["sat"] as? Int == 6)
        #expect(abs((late["speed"] as? Double ?? 0) - 0.09 * 1852 / 3600) < 1e-12)
    }

    @Test(
        "a sentence two epochs late opens an epoch of its own (the window is one epoch), which repeats a time and is skipped"
    )
    func twoEpochsLate() throws {
        let (fixes, _) = try Self.gpx2fix(
            [
                "$GPGGA,120000,5333.4037,N,00951.9347,E,1,06,1.7,48.4,M,46.0,M,,",
                "$GPGGA,120001,5333.4037,N,00951.9347,E,1,06,1.7,48.4,M,46.0,M,,",
                "$GPGGA,120002,5333.4037,N,00951.9347,E,1,06,1.7,48.4,M,46.0,M,,",
                "$GPGLL,5333.4037,N,00951.9347,E,120000,A,A",
            ], ["--date", "2007-08-17"])
        // Its epoch's time is that of the first fix: skipped (NMEADistinctTimesTests).
        #expect(fixes.count == 3)
    }

    @Test(
        "nmea+ms.txt: one fix at 09:31:58.500, and every fix GPSBabel's reference gives is there with its position",
        .enabled(if: Tools.corpus != nil, Comment(rawValue: Tools.corpusMissing)))
    func gpsbabelMilliseconds() throws {
        let (fixes, _) = try Self.corpus("gpsbabel__reference__track__nmea+ms.txt")
        let times = fixes.compactMap { $0["time"] as? String }
        #expect(times.filter { $0 == "2007-08-17T09:31:58.500Z" }.count == 1)
        #expect(
            fixes.count == 32,
            "37 before the one-epoch-late rule, one of them a second 58.500; 36 before the distinct-time rule skipped 4 more repeats"
        )
        // GPSBabel's expected GPX: every trkpt (time, lat, lon) is one of ours.
        let gpx = try String(
            contentsOf: try #require(Tools.corpus).appendingPathComponent(
                "gpx/gpsbabel__reference__track__nmea+ms.gpx"),
            encoding: .utf8)
        let points = try Regex(#"<trkpt lat="([-0-9.]+)" lon="([-0-9.]+)">\s*<ele>[^<]*</ele>\s*<time>([^<]+)</time>"#)
        var checked = 0
        for match in gpx.matches(of: points) {
            let latText = match.output[1].substring.map(String.init) ?? ""
            let lonText = match.output[2].substring.map(String.init) ?? ""
            let lat = try #require(Double(latText))
            let lon = try #require(Double(lonText))
            let time = (match.output[3].substring.map(String.init) ?? "").replacingOccurrences(of: "Z", with: "")
            let mine = fixes.first { ($0["time"] as? String).map { t in Self.sameTime(t, time) } == true }
            let fix = try #require(mine, "GPSBabel's point at \(time) is not among gpx2fix's fixes")
            // Within three steps of the log's last digit (0.0001 minute, 1.7e-6 degrees): where
            // RMC and GGA of an epoch (or of its scrambled neighbours) differ, GPSBabel keeps another.
            #expect(
                abs((fix["lat"] as? Double ?? 0) - lat) < 5e-6 && abs((fix["lon"] as? Double ?? 0) - lon) < 5e-6,
                "\(time)")
            checked += 1
        }
        #expect(checked >= 20, "only \(checked) GPSBabel points were read")
    }

    /// `2007-08-17T09:31:57Z` and `2007-08-17T09:31:57.000` are the same time.
    static func sameTime(_ a: String, _ b: String) -> Bool {
        func norm(_ t: String) -> String {
            var t = t.replacingOccurrences(of: "Z", with: "")
            if !t.contains(".") { t += ".000" }
            while t.count < 23 { t += "0" }
            return t
        }
        return norm(a) == norm(b)
    }

    // MARK: a garbled RMC date

    @Test(
        "april6_2019.log: the RMC dated 2208-1 gives its position, dated from the next RMC",
        .enabled(if: Tools.corpus != nil, Comment(rawValue: Tools.corpusMissing)))
    func garbledDate() throws {
        let (fixes, stderr) = try Self.corpus("gpsd__test__daemon__april6_2019.log")
        #expect(stderr.isEmpty, "\(stderr)")
        #expect(fixes.count == 2)
        #expect(fixes.first?["time"] as? String == "1999-08-22T00:02:31.099Z")
        #expect(abs((fixes.first?["lat"] as? Double ?? 0) - (48 + 29.0005 / 60)) < 1e-12)
        #expect(abs((fixes.first?["lon"] as? Double ?? 0) - 22.0015 / 60) < 1e-12)
    }

    @Test("a garbled date in a log's only RMC: the fix is written, undated, with the no-date note")
    func garbledOnlyDate() throws {
        let (fixes, stderr) = try Self.gpx2fix(["$GPRMC,000231.099,A,4829.0005,N,00022.0015,E,0.15,212.28,2208-1,,,A"])
        #expect(fixes.count == 1)
        #expect(fixes.first?["time"] == nil)
        #expect(stderr.contains("the log gives no date"))
        #expect(!stderr.contains("malformed"))
    }

    // MARK: GGA quality 7 and 8

    @Test(
        "GPSmap-76S.log: its 12 simulator GGAs give no fix and are counted",
        .enabled(if: Tools.corpus != nil, Comment(rawValue: Tools.corpusMissing)))
    func simulator() throws {
        let (fixes, stderr) = try Self.corpus("gpsd__test__daemon__GPSmap-76S.log")
        #expect(fixes.isEmpty)
        #expect(stderr.contains(": 12 not measured (GGA quality 7 or 8) of 151 NMEA sentences dropped"), "\(stderr)")
    }

    @Test("quality 7 is skipped but an RMC of the same epoch still gives the fix; the summary lists all three counts")
    func manualBesideRMC() throws {
        let (fixes, stderr) = try Self.gpx2fix(
            [
                "$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W",
                "$GPGGA,123519,4807.038,N,01131.000,E,7,08,0.9,545.4,M,46.9,M,,",
                "$GPGGA,123520,4807.038,N,01131.000,E,1,x8,0.9,545.4,M,46.9,M,,",
            ] + ["$GPGGA,123521,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*00"])
        #expect(fixes.count == 1)
        #expect(fixes.first?["alt"] == nil, "the quality-7 GGA's altitude was used")
        #expect(
            stderr.contains(
                ": 1 with a bad checksum, 1 malformed and 1 not measured (GGA quality 7 or 8) of 4 NMEA sentences dropped"
            ), "\(stderr)")
    }

    // MARK: the more precise position

    @Test("of two positions in an epoch the one with more decimals wins, whichever comes first; a tie keeps the first")
    func precision() throws {
        let coarse = "$GPRMC,010203,A,4807.038,N,01131.000,E,1.0,10.0,230394,,"
        let fine = "$GNGGA,010203,4807.0384512,N,01131.0001234,E,4,12,0.6,545.4,M,46.9,M,,"
        let lat = 48 + 7.0384512 / 60, lon = 11 + 31.0001234 / 60
        for order in [[coarse, fine], [fine, coarse]] {
            let (fixes, _) = try Self.gpx2fix(order)
            #expect(abs((fixes.first?["lat"] as? Double ?? 0) - lat) < 1e-12, "\(order)")
            #expect(abs((fixes.first?["lon"] as? Double ?? 0) - lon) < 1e-12, "\(order)")
            #expect(fixes.first?["speed"] != nil && fixes.first?["alt"] as? Double == 545.4)
        }
        let (tie, _) = try Self.gpx2fix([
            "$GPRMC,010203,A,4807.038,N,01131.000,E,1.0,10.0,230394,,",
            "$GPGLL,4807.039,N,01131.001,E,010203,A,A",
        ])
        #expect(abs((tie.first?["lat"] as? Double ?? 0) - (48 + 7.038 / 60)) < 1e-12)
    }

    // MARK: each fix its own epoch's

    /// The fixes of one log are written one after another through the same record (nothing
    /// is allocated for an epoch): a fix has what its own epoch said and nothing of the one
    /// before, whether it has more members or fewer, a time or none (GLL of NMEA 1.x, last),
    /// or waits for `--date`. (Read from standard input: no trace.)
    @Test("a fix has its own epoch's members and no other's")
    func eachFixItsOwnMembers() throws {
        let sentences = [
            "$GPRMC,120000,A,4807.038,N,01131.000,E,10.0,84.4,230394,,",
            "$GPGGA,120000,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,",
            "$GPGST,120000,1.2,1.5,0.9,33.2,1.3,1.1,2.4",
            "$GPGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1",
            "$GPRMC,120001,A,4807.039,N,01131.001,E,,,230394,,",
            "$GPGGA,120002,4807.040,N,01131.002,E,1,07,1.1,,M,,M,,",
            "$GPGGA,120003,4807.042,N,01131.004,E,1,09,,546.0,M,46.9,M,,",
            "$GPGLL,4807.041,N,01131.003,E",
        ]
        let full: Set = [
            "time", "lat", "lon", "alt", "hacc", "vacc", "speed", "course", "hdop", "vdop", "pdop", "sat",
        ]
        let (fixes, _) = try Self.gpx2fix(sentences)
        #expect(
            fixes.map { Set($0.keys) } == [
                full, ["time", "lat", "lon"], ["time", "lat", "lon", "hdop", "sat"],
                ["time", "lat", "lon", "alt", "sat"], ["lat", "lon"],
            ])
        #expect(
            fixes.map { $0["time"] as? String } == [
                "1994-03-23T12:00:00Z", "1994-03-23T12:00:01Z", "1994-03-23T12:00:02Z", "1994-03-23T12:00:03Z", nil,
            ])
        // Without RMC, no date: the epochs with a time wait for `--date` and are written at
        // the end, after the one without, as they were.
        let (held, _) = try Self.gpx2fix(sentences.filter { !$0.hasPrefix("$GPRMC") }, ["--date", "2020-02-02"])
        #expect(
            held.map { Set($0.keys) } == [
                ["lat", "lon"], full.subtracting(["speed", "course"]), ["time", "lat", "lon", "hdop", "sat"],
                ["time", "lat", "lon", "alt", "sat"],
            ])
        #expect(held.dropFirst().first?["time"] as? String == "2020-02-02T12:00:00Z")
    }
}
