import Foundation
import Testing

@testable import FixKit

/// gpx2fix's JSON formats over files generated from a known truth, in the styles of the
/// producers that write them (Overland, GPSLogger, togeojson, Google Takeout's Records.json,
/// Semantic Location History and Timeline.json, OwnTracks' Recorder and apps), and over bad
/// input in every format: reported at its line, the rest still read.
@Suite("JSON formats: generated files and bad input")
struct JSONFormatTests {
    /// The truth: a walk of fixes with every field the formats carry.
    static func truth(_ n: Int = 40) -> [Fix] {
        (0..<n).map { i in
            let t = Timestamp(milliseconds: 1_700_000_000_000 + Int64(i) * 5_000 + (i % 3 == 0 ? 250 : 0))
            return Fix(
                time: t, lat: 47.3769 + Double(i) * 1e-4, lon: 8.5417 - Double(i) * 2e-4, alt: 400 + Double(i) / 4,
                hacc: Double(3 + i % 7), vacc: Double(2 + i % 5), speed: 1.25 + Double(i % 4), course: Double((i * 37) % 360))
        }
    }

    /// Runs gpx2fix on `text` saved as `name` in a fresh directory.
    static func read(_ text: String, name: String, _ arguments: [String] = []) throws -> Tools.Result {
        let dir = TestScratch.root.appendingPathComponent("fixkit-json-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent(name)
        try Data(text.utf8).write(to: file)
        var result = try Tools.run("gpx2fix", arguments + [file.path])
        result.stderr = result.stderr.replacingOccurrences(of: file.path, with: name)
        return result
    }

    static func n(_ v: Double) -> String { DecimalNumber.text(v) }

    /// `t` as local time at `offset` minutes east of UTC, written `±HH:MM` (or `±HHMM`).
    static func local(_ t: Timestamp, _ offset: Int, colon: Bool = true) -> String {
        var text = Timestamp(milliseconds: t.milliseconds + Int64(offset) * 60_000).rfc3339
        text.removeLast()
        let a = abs(offset)
        let hh = String(format: "%02d", a / 60), mm = String(format: "%02d", a % 60)
        return text + (offset < 0 ? "-" : "+") + hh + (colon ? ":" : "") + mm
    }

    static func expect(_ result: Tools.Result, _ expected: [Fix], _ what: String, status: Int32 = 0) {
        let want = expected.map { FixEncoder.line($0).dropLast() }.map(String.init)
        #expect(result.status == status, "\(what): exit \(result.status): \(result.stderr)")
        #expect(result.lines.count == want.count, "\(what): \(result.lines.count) fixes, expected \(want.count)")
        for (i, (a, b)) in zip(result.lines, want).enumerated() where a != b {
            Issue.record("\(what): fix #\(i)\n  got      \(a)\n  expected \(b)")
            break
        }
    }

    // MARK: GeoJSON

    @Test("Overland: a pretty-printed batch with offsets, -1 sentinels and app properties")
    func overland() throws {
        let truth = Self.truth()
        var features: [String] = []
        var expected: [Fix] = []
        for (i, f) in truth.enumerated() {
            let vacc = i % 6 == 5 ? -1 : f.vacc!
            let speed = i % 9 == 4 ? -1 : f.speed!
            features.append(
                """
                    {
                      "type": "Feature",
                      "geometry": { "type": "Point", "coordinates": [\(Self.n(f.lon)), \(Self.n(f.lat))] },
                      "properties": {
                        "timestamp": "\(Self.local(f.time!, -420, colon: false))",
                        "altitude": \(Self.n(f.alt!)), "speed": \(Self.n(speed)), "horizontal_accuracy": \(Self.n(f.hacc!)),
                        "vertical_accuracy": \(Self.n(vacc)), "course": \(Self.n(f.course!)),
                        "motion": ["walking"], "battery_level": 0.8, "device_id": "", "wifi": ""
                      }
                    }
                """)
            var e = f
            e.trace = "overland.json"
            if vacc < 0 { e.vacc = nil; e.alt = nil }
            if speed < 0 { e.speed = nil }
            expected.append(e)
        }
        features.append(#"    {"type": "Feature", "properties": {"action": "app_quit", "timestamp": "2024-01-01T00:00:00Z"}}"#)
        let text = "{\n  \"locations\": [\n" + features.joined(separator: ",\n") + "\n  ]\n}\n"
        let result = try Self.read(text, name: "overland.json")
        Self.expect(result, expected, "Overland")
        #expect(result.stderr.contains("1 without geometry"))
    }

    @Test("GPSLogger: a FeatureCollection with \"type\" last, +07:00 times, accuracy, bearing, time_long")
    func gpslogger() throws {
        let truth = Self.truth()
        let features = truth.map { f in
            #"{"type":"Feature","properties":{"time":"\#(Self.local(f.time!, 420))","provider":"gps","time_long":\#(f.time!.milliseconds),"#
                + #""accuracy":\#(Self.n(f.hacc!)),"altitude":\#(Self.n(f.alt!)),"speed":\#(Self.n(f.speed!)),"bearing":\#(Self.n(f.course!))},"#
                + #""geometry":{"type":"Point","coordinates":[\#(Self.n(f.lon)),\#(Self.n(f.lat))]}}"#
        }
        let text = #"{"features":["# + features.joined(separator: ",") + #"],"type":"FeatureCollection"}"#
        let expected = truth.map { f in
            Fix(time: f.time, lat: f.lat, lon: f.lon, alt: f.alt, hacc: f.hacc, speed: f.speed, course: f.course, trace: "gpslogger.geojson")
        }
        Self.expect(try Self.read(text, name: "gpslogger.geojson"), expected, "GPSLogger")
    }

    @Test("togeojson: a LineString with coordTimes, one with coordinateProperties.times, a MultiLineString")
    func togeojson() throws {
        let truth = Self.truth(30)
        let a = Array(truth[0..<10]), b = Array(truth[10..<20]), c = Array(truth[20..<30])
        func coords(_ fs: [Fix]) -> String { "[" + fs.map { "[\(Self.n($0.lon)),\(Self.n($0.lat)),\(Self.n($0.alt!))]" }.joined(separator: ",") + "]" }
        func times(_ fs: [Fix]) -> String { "[" + fs.map { "\"\($0.time!.rfc3339)\"" }.joined(separator: ",") + "]" }
        let text = """
            {"type":"FeatureCollection","features":[
            {"type":"Feature","properties":{"name":"Ride","coordTimes":\(times(a)),"heartRates":[]},"geometry":{"type":"LineString","coordinates":\(coords(a))}},
            {"type":"Feature","geometry":{"type":"LineString","coordinates":\(coords(b))},"properties":{"name":"Ride","coordinateProperties":{"times":\(times(b))}}},
            {"type":"Feature","geometry":{"type":"MultiLineString","coordinates":[\(coords(Array(c[0..<4]))),\(coords(Array(c[4...])))]},"properties":{"coordTimes":[\(times(Array(c[0..<4]))),\(times(Array(c[4...])))]}}
            ]}
            """
        var expected: [Fix] = []
        for f in a { expected.append(Fix(time: f.time, lat: f.lat, lon: f.lon, alt: f.alt, trace: "Ride", seg: 0)) }
        for f in b { expected.append(Fix(time: f.time, lat: f.lat, lon: f.lon, alt: f.alt, trace: "Ride", seg: 1)) }
        for (i, f) in c.enumerated() {
            expected.append(Fix(time: f.time, lat: f.lat, lon: f.lon, alt: f.alt, trace: "lines.geojson", seg: i < 4 ? 0 : 1))
        }
        Self.expect(try Self.read(text, name: "lines.geojson"), expected, "togeojson")
    }

    @Test("a single Feature, properties before geometry, and a Point without time (a waypoint)")
    func singleFeature() throws {
        let text = """
            {"properties": {"timestamp": 1700000000, "accuracy": 12}, "type": "Feature",
             "geometry": {"coordinates": [8.5, 47.25, 410], "type": "Point"}}
            """
        Self.expect(
            try Self.read(text, name: "one.json"),
            [Fix(time: Timestamp(milliseconds: 1_700_000_000_000), lat: 47.25, lon: 8.5, alt: 410, hacc: 12, trace: "one.json")], "Feature")
        let place = #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[8.5,47.25]},"properties":{"name":"Home"}}]}"#
        Self.expect(try Self.read(place, name: "p.json"), [Fix(lat: 47.25, lon: 8.5, name: "Home", trace: "p.json")], "waypoint only")
    }

    // MARK: Google location history

    @Test("Records.json in Takeout's layout: E7 wrap, timestamp and timestampMs, activity, a second device")
    func records() throws {
        let truth = Self.truth()
        var items: [String] = []
        var expected: [Fix] = []
        for (i, f) in truth.enumerated() {
            // Southern and western values, written as Google's exporter wrote them past 2^31.
            let latE7 = Int64((f.lat * 1e7).rounded()) * (i % 4 == 1 ? -1 : 1)
            let lonE7 = Int64((f.lon * 1e7).rounded()) * (i % 4 == 2 ? -1 : 1)
            let wrappedLat = i % 8 == 1 ? latE7 + (1 << 32) : latE7
            let wrappedLon = i % 8 == 2 ? lonE7 + (1 << 32) : lonE7
            let time = i % 2 == 0 ? "\"timestamp\" : \"\(f.time!.rfc3339)\"" : "\"timestampMs\" : \"\(f.time!.milliseconds)\""
            let device = i % 10 == 7 ? 222 : 111
            items.append(
                """
                  {
                    "latitudeE7" : \(wrappedLat),
                    "longitudeE7" : \(wrappedLon),
                    "accuracy" : \(Int(f.hacc!)),
                    "altitude" : \(Int(f.alt!)),
                    "verticalAccuracy" : \(Int(f.vacc!)),
                    "velocity" : \(Int(f.speed!)),
                    "heading" : \(Int(f.course!)),
                    "activity" : [ { "activity" : [ { "type" : "STILL", "confidence" : 100 } ], "timestamp" : "\(f.time!.rfc3339)" } ],
                    "source" : "GPS",
                    "deviceTag" : \(device),
                    \(time)
                  }
                """)
            expected.append(
                Fix(
                    time: f.time, lat: Double(latE7) / 1e7, lon: Double(lonE7) / 1e7, alt: Double(Int(f.alt!)), hacc: f.hacc,
                    vacc: f.vacc, speed: Double(Int(f.speed!)), course: f.course,
                    trace: device == 111 ? "Records.json" : "Records.json (device 222)"))
        }
        items.append(#"  { "timestampMs" : "1700000000000", "activity" : [ ] }"#)
        let text = "{\n  \"locations\" : [" + items.joined(separator: ", ") + " ]\n}"
        let result = try Self.read(text, name: "Records.json")
        Self.expect(result, expected, "Records.json")
        #expect(result.stderr.contains("1 locations without coordinates skipped"))
    }

    @Test("Semantic Location History: activity start and end, raw paths, place visits as waypoints")
    func semantic() throws {
        let text = """
            {"timelineObjects": [
              {"placeVisit": {"location": {"latitudeE7": 473769000, "longitudeE7": 85417000, "name": "Office"},
                "duration": {"startTimestamp": "2023-11-14T08:00:00Z", "endTimestamp": "2023-11-14T12:00:00Z"}}},
              {"activitySegment": {"startLocation": {"latitudeE7": 473769000, "longitudeE7": 85417000},
                "endLocation": {"latitudeE7": 473800000, "longitudeE7": 85500000},
                "duration": {"startTimestamp": "2023-11-14T12:00:00Z", "endTimestamp": "2023-11-14T12:30:00.500Z"},
                "waypointPath": {"waypoints": [{"latE7": 473770000, "lngE7": 85420000}]},
                "simplifiedRawPath": {"points": [{"latE7": 473780000, "lngE7": 85450000, "accuracyMeters": 9, "timestamp": "2023-11-14T12:10:00Z"},
                                                 {"latE7": 473790000, "lngE7": 85470000, "accuracyMeters": 7, "timestampMs": "1699964400000"}]}}}
            ]}
            """
        let track = [
            Fix(time: Timestamp.parse("2023-11-14T12:00:00Z"), lat: 47.3769, lon: 8.5417, trace: "m.json"),
            Fix(time: Timestamp.parse("2023-11-14T12:10:00Z"), lat: 47.378, lon: 8.545, hacc: 9, trace: "m.json"),
            Fix(time: Timestamp(milliseconds: 1_699_964_400_000), lat: 47.379, lon: 8.547, hacc: 7, trace: "m.json"),
            Fix(time: Timestamp.parse("2023-11-14T12:30:00.500Z"), lat: 47.38, lon: 8.55, trace: "m.json"),
        ]
        let result = try Self.read(text, name: "m.json")
        Self.expect(result, track, "semantic")
        #expect(result.stderr.contains("1 waypointPath points have no time"))
        let visit = Fix(time: Timestamp.parse("2023-11-14T08:00:00Z"), lat: 47.3769, lon: 8.5417, name: "Office", trace: "m.json")
        Self.expect(try Self.read(text, name: "m.json", ["--waypoints"]), [visit] + track, "semantic --waypoints")
    }

    @Test("Timeline.json: timelinePath points, rawSignals positions, visits as waypoints")
    func timeline() throws {
        let text = """
            {
              "semanticSegments" : [ {
                "startTime" : "2025-07-19T08:00:00.000+02:00", "endTime" : "2025-07-19T10:00:00.000+02:00",
                "timelinePath" : [ { "point" : "48.1372°, 11.5756°", "time" : "2025-07-19T08:05:00.000+02:00" },
                                   { "point" : "-48.1400°, -11.5800°", "time" : "2025-07-19T08:06:00.000+02:00" } ]
              }, {
                "startTime" : "2025-07-19T10:00:00.000+02:00", "endTime" : "2025-07-19T11:00:00.000+02:00",
                "visit" : { "topCandidate" : { "semanticType" : "HOME", "placeLocation" : { "latLng" : "48.1500°, 11.5900°" } } }
              }, {
                "startTime" : "2025-07-19T11:00:00.000+02:00", "endTime" : "2025-07-19T11:30:00.000+02:00",
                "activity" : { "start" : { "latLng" : "48.15°, 11.59°" }, "end" : { "latLng" : "48.16°, 11.6°" } }
              } ],
              "rawSignals" : [ { "position" : { "LatLng" : "48.1372°, 11.5756°", "accuracyMeters" : 11, "altitudeMeters" : 520.5,
                  "source" : "GPS", "timestamp" : "2025-07-19T08:05:01.000+02:00", "speedMetersPerSecond" : 1.5 } },
                { "wifiScan" : { } } ],
              "userLocationProfile" : { "frequentPlaces" : [ ] }
            }
            """
        let result = try Self.read(text, name: "Timeline.json")
        Self.expect(
            result,
            [
                Fix(time: Timestamp.parse("2025-07-19T06:05:00Z"), lat: 48.1372, lon: 11.5756, trace: "Timeline.json"),
                Fix(time: Timestamp.parse("2025-07-19T06:06:00Z"), lat: -48.14, lon: -11.58, trace: "Timeline.json"),
                Fix(
                    time: Timestamp.parse("2025-07-19T06:05:01Z"), lat: 48.1372, lon: 11.5756, alt: 520.5, hacc: 11, speed: 1.5,
                    trace: "Timeline.json (rawSignals)"),
            ], "Timeline.json")
    }

    // MARK: OwnTracks

    @Test("OwnTracks: a Recorder .rec (tabs, and spaces as older Recorders wrote), messages one a line, an array")
    func owntracks() throws {
        let truth = Self.truth(12)
        func message(_ f: Fix, _ i: Int) -> String {
            let vel = i % 5 == 3 ? -1 : Int((f.speed! * 3.6).rounded())
            return #"{"_type":"location","tid":"ph","acc":\#(Int(f.hacc!)),"alt":\#(Int(f.alt!)),"vac":\#(i % 4 == 2 ? -1 : Int(f.vacc!)),"#
                + #""vel":\#(vel),"cog":\#(i % 6 == 1 ? -1 : Int(f.course!)),"lat":\#(Self.n(f.lat)),"lon":\#(Self.n(f.lon)),"tst":\#(f.time!.milliseconds / 1000),"batt":80}"#
        }
        let expected = truth.enumerated().map { i, f in
            Fix(
                time: Timestamp(milliseconds: f.time!.milliseconds / 1000 * 1000), lat: f.lat, lon: f.lon,
                alt: i % 4 == 2 ? nil : Double(Int(f.alt!)), hacc: Double(Int(f.hacc!)), vacc: i % 4 == 2 ? nil : Double(Int(f.vacc!)),
                speed: i % 5 == 3 ? nil : Double(Int((f.speed! * 3.6).rounded())) / 3.6, course: i % 6 == 1 ? nil : Double(Int(f.course!)),
                trace: "ph")
        }
        var rec = ""
        for (i, f) in truth.enumerated() {
            rec += i % 2 == 0 ? "\(f.time!.rfc3339)\t*                 \t\(message(f, i))\n" : "\(f.time!.rfc3339)  *                   \(message(f, i))\n"
            if i == 3 { rec += "\(f.time!.rfc3339)\t-                 \t{\"tst\":\"1440363922\",\"_type\":\"lwt\"}\n" }
        }
        let r = try Self.read(rec, name: "2023-11.rec")
        Self.expect(r, expected, ".rec")
        #expect(r.stderr.contains("1 lwt"))
        let lines = truth.enumerated().map { message($1, $0) }.joined(separator: "\n") + "\n"
        Self.expect(try Self.read(lines, name: "msgs.json"), expected, "messages one a line")
        let array = "[\n" + truth.enumerated().map { message($1, $0) }.joined(separator: ",\n") + "\n]\n"
        Self.expect(try Self.read(array, name: "msgs.json"), expected, "an array")
    }

    // MARK: Fix records

    @Test("our own fix records pass through, checked, unknown members kept; a bad line is reported")
    func fixRecords() throws {
        let text = """
            {"time":"2026-01-01T09:00:00Z","lat":47.1,"lon":8.5,"hr":120,"trace":"w"}

            {"lat":47.2,"lon":8.6,"sat":7,"note":{"a":[1,null]}}
            {"lat":95,"lon":8.6}
            {"lat":47.3, "lon":8.7, "seg":1}
            """
        let r = try Self.read(text, name: "walk.ndjson")
        #expect(r.status == 1)
        #expect(
            r.lines == [
                #"{"time":"2026-01-01T09:00:00Z","lat":47.1,"lon":8.5,"trace":"w","hr":120}"#,
                #"{"lat":47.2,"lon":8.6,"sat":7,"note":{"a":[1,null]}}"#,
                #"{"lat":47.3,"lon":8.7,"seg":1}"#,
            ], "\(r.out)")
        #expect(r.stderr.hasPrefix("gpx2fix: walk.ndjson:4: lat 95 is out of range"), "\(r.stderr)")
    }

    // MARK: Bad input, in every format

    @Test("a broken element is reported at its line, and the elements around it are still read", arguments: [
        // (name, text, line of the problem, fixes still written)
        ("bad.geojson", "{\"type\":\"FeatureCollection\",\"features\":[\n{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[8,47]},\"properties\":{\"time\":\"2024-01-01T00:00:00Z\"}},\n{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\n\"coordinates\":[8,]}},\n{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[8,147]},\"properties\":{}},\n{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[8.1,47]},\"properties\":{\"time\":\"2024-01-01T00:00:01Z\"}}\n]}", [4, 5], 2),
        ("Records.json", "{\"locations\":[\n{\"latitudeE7\":470000000,\"longitudeE7\":80000000,\"timestamp\":\"2024-01-01T00:00:00Z\"},\n{\"latitudeE7\":470000000\n \"longitudeE7\":80000000},\n{\"latitudeE7\":470000001,\"longitudeE7\":80000000,\"timestamp\":\"yesterday\"},\n{\"latitudeE7\":470000002,\"longitudeE7\":80000000,\"timestampMs\":\"1704067201000\"}\n]}", [4, 5], 2),
        ("bad.rec", "2024-01-01T00:00:00Z\t*\t{\"_type\":\"location\",\"lat\":47,\"lon\":8,\"tst\":1704067200}\n2024-01-01T00:00:01Z\t*\t{\"_type\":\"location\",\"lat\":47,\"lon\":}\nnot a rec line\n2024-01-01T00:00:02Z\t*\t{\"_type\":\"location\",\"lat\":47.1,\"lon\":8,\"tst\":1704067202}\n", [2, 3], 2),
        ("m.json", "{\"timelineObjects\":[\n{\"activitySegment\":{\"startLocation\":{\"latitudeE7\":470000000,\"longitudeE7\":80000000},\"duration\":{\"startTimestamp\":\"2024-01-01T00:00:00Z\"}}},\n{\"activitySegment\":{\"startLocation\":\n{\"latitudeE7\":470000000,,}}},\n{\"placeVisit\":{\"location\":{\"latitudeE7\":470000000,\"longitudeE7\":80000000}}}\n]}", [4], 1),
        ("Timeline.json", "{\"semanticSegments\":[\n{\"timelinePath\":[{\"point\":\"48.1°, 11.5°\",\"time\":\"2024-01-01T00:00:00Z\"},\n{\"point\":\"somewhere\",\"time\":\"2024-01-01T00:01:00Z\"}]}],\n\"rawSignals\":[{\"position\":{\"LatLng\":\"48.2°, 11.5°\",\"timestamp\":\"2024-01-01T00:00:30Z\"}}]}", [3], 2),
    ] as [(String, String, [Int], Int)])
    func badElement(name: String, text: String, lines: [Int], fixes: Int) throws {
        let r = try Self.read(text, name: name)
        #expect(r.status == 1, "\(name): \(r.stderr)")
        #expect(r.lines.count == fixes, "\(name): \(r.out)")
        let reported = r.stderr.split(separator: "\n").compactMap { CorpusGPXTests.problemLine(String($0), tool: "gpx2fix", path: name) }
        #expect(reported == lines, "\(name): problems at \(reported), expected \(lines): \(r.stderr)")
    }

    @Test("a document cut short: everything before the cut, then an error at the line it ends")
    func truncated() throws {
        let text = "{\"locations\":[\n{\"latitudeE7\":470000000,\"longitudeE7\":80000000},\n{\"latitudeE7\":470000001,\"longitudeE7\":80000000},\n{\"latitudeE7\":4700"
        let r = try Self.read(text, name: "Records.json")
        #expect(r.status == 1)
        #expect(r.lines.count == 2)
        #expect(r.stderr.contains("Records.json:4: the document ends inside an element"), "\(r.stderr)")
    }

    @Test("JSON that no format claims is reported, with or without a byte order mark", arguments: [
        "{\"foo\": 1}\n", "\u{FEFF}{\"foo\": [1, 2]}", "[1, 2, 3]", "\u{FEFF}\n\n  [{\"x\": 1}]",
    ])
    func unclaimedJSON(text: String) throws {
        let r = try Self.read(text, name: "x.json")
        #expect(r.status == 1)
        #expect(r.out.isEmpty)
        #expect(r.stderr.contains("JSON of no shape gpx2fix reads: expected GeoJSON"), "\(r.stderr)")
        #expect(r.stderr.hasPrefix("gpx2fix: x.json:"), "\(r.stderr)")
    }

    @Test("a BOM before a Semantic Location History month; --format names the JSON formats")
    func bomAndFormat() throws {
        let text = "\u{FEFF}{\"timelineObjects\": [{\"activitySegment\": {\"startLocation\": {\"latitudeE7\": 604518000, \"longitudeE7\": 222666000}, \"duration\": {\"startTimestamp\": \"2024-01-01T10:00:00Z\"}}}]}"
        Self.expect(try Self.read(text, name: "s.json"), [Fix(time: Timestamp.parse("2024-01-01T10:00:00Z"), lat: 60.4518, lon: 22.2666, trace: "s.json")], "BOM")
        let forced = try Self.read(#"{"lat":1,"lon":2}"#, name: "f.txt", ["--format", "fix"])
        #expect(forced.lines == [#"{"lat":1,"lon":2}"#])
        let help = try Tools.run("gpx2fix", ["--format", "help"])
        for name in ["geojson", "takeout", "owntracks", "fix"] { #expect(help.out.contains("  \(name) "), "\(help.out)") }
    }

    @Test("recognition: the first element of \"locations\" tells Overland from Records.json, whatever the order of members")
    func recognition() {
        func shape(_ s: String, complete: Bool = true) -> JSONShape { JSONShape.of(InputHead(bytes: Array(s.utf8), isComplete: complete)) }
        #expect(shape(#"{"locations":[{"type":"Feature"}]}"#) == .geojson)
        #expect(shape(#"{"locations":[{"latitudeE7":1}]}"#) == .takeout)
        #expect(shape(#"{"locations":[{"properties":{},"geometry":null}]}"#) == .geojson)
        #expect(shape(#"{"locations":[]}"#) == .takeout)
        #expect(shape(#"{"crs":{"a":[1,2]},"features":[]}"#) == .geojson)
        #expect(shape(#"{"locations":[{"activity":[{"x":1}],"latitu"#, complete: false) == .needMore)
        #expect(shape(#"{"_type":"location"}"#) == .owntracks)
        #expect(shape(#"{"lat":1,"lon":2}"#) == .plainObject)
        // Monotone: every prefix of a document answers needMore or the document's answer.
        let doc = #"{"name":"x","locations":[{"activity":[{"type":"STILL"}],"timestampMs":"1"}]}"#
        for k in 0...doc.utf8.count {
            let s = shape(String(doc.prefix(k)), complete: false)
            #expect(s == .needMore || s == .takeout, "prefix \(k): \(s)")
        }
    }
}
