import Foundation
import Testing

@testable import FixKit

/// Two recordings never share a trace within a run (SPEC): the naming rule alone, then
/// gpx2fix over rides named alike, and fixfilter's warning when a trace goes back in time.
struct TraceNamesTests {
    @Test func theRule() {
        var n = TraceNames()
        n.beginInput(fileName: "2026-01-02.gpx")
        #expect(n.trace(for: "Morning Ride", recording: 1) == "Morning Ride")
        #expect(n.trace(for: "Morning Ride", recording: 1) == "Morning Ride")  // the same track
        #expect(n.trace(for: "Morning Ride", recording: 2) == "Morning Ride (2026-01-02.gpx)")  // same file, 2nd track
        #expect(n.trace(for: "Morning Ride", recording: 3) == "Morning Ride (2026-01-02.gpx, 2)")
        #expect(n.trace(for: "2026-01-02.gpx", recording: 4) == "2026-01-02.gpx")  // an unnamed track
        #expect(n.trace(for: "2026-01-02.gpx", recording: 5) == "2026-01-02.gpx (2)")
        n.beginInput(fileName: "2026-01-01.gpx")
        #expect(n.trace(for: "Morning Ride", recording: 1) == "Morning Ride (2026-01-01.gpx)")
        #expect(n.trace(for: "Evening Ride", recording: 2) == "Evening Ride")
        // A name really spelled like a made one is not merged with it.
        #expect(n.trace(for: "Morning Ride (2026-01-02.gpx)", recording: 3) == "Morning Ride (2026-01-02.gpx) (2026-01-01.gpx)")
        n.beginInput(fileName: "2026-01-01.gpx")  // the same file name from another folder
        #expect(n.trace(for: "Morning Ride", recording: 1) == "Morning Ride (2026-01-01.gpx, 2)")
        // gpsd: one recording per device within an input.
        n.beginInput(fileName: "gpsd.json")
        #expect(n.trace(for: "/dev/ttyACM0", recording: 0) == "/dev/ttyACM0")
        #expect(n.trace(for: "/dev/ttyUSB0", recording: 0) == "/dev/ttyUSB0")
        #expect(n.trace(for: "/dev/ttyACM0", recording: 0) == "/dev/ttyACM0")
        // Standard input: no file name to add.
        n.beginInput(fileName: nil)
        #expect(n.trace(for: "Morning Ride", recording: 1) == "Morning Ride (2)")
        #expect(n.trace(for: nil, recording: 2) == nil)
        #expect(n.trace(for: nil, recording: 3) == "standard input (2)")
        #expect(n.peekTrace(for: "Evening Ride", recording: 9) == "Evening Ride (2)")
        #expect(n.trace(for: "Evening Ride", recording: 9) == "Evening Ride (2)")
    }

    /// Ten thousand rides of one name from files of one name: all different, in linear time.
    @Test func manyOfOneName() {
        var n = TraceNames()
        var seen = Set<String>()
        for _ in 0..<10_000 {
            n.beginInput(fileName: "ride.gpx")
            if let t = n.trace(for: "Morning Ride", recording: 1) { seen.insert(t) }
        }
        #expect(seen.count == 10_000)
        #expect(seen.contains("Morning Ride (ride.gpx, 9999)"))
    }

    static func gpx(_ tracks: [(String?, Int)], start: Int) -> String {
        var s = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"test\" xmlns=\"http://www.topografix.com/GPX/1/1\">\n"
        var t = start
        for (name, points) in tracks {
            s += "<trk>" + (name.map { "<name>\($0)</name>" } ?? "") + "<trkseg>\n"
            for k in 0..<points {
                s += "<trkpt lat=\"47.\(1000 + k * 3)\" lon=\"8.5\"><time>\(Timestamp(milliseconds: Int64(t) * 1000).rfc3339)</time></trkpt>\n"
                t += 1
            }
            s += "</trkseg></trk>\n"
        }
        return s + "</gpx>\n"
    }

    /// The issue's case: two rides called Morning Ride, the later file first. Each keeps its
    /// fixes through fixfilter (before, the second was dropped as stale), with names from the rule.
    @Test func ridesNamedAlike() throws {
        let dir = TestScratch.root.appendingPathComponent("fixkit-names-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("b"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let jan2 = 1_767_337_200  // 2026-01-02T07:00:00Z
        try Self.gpx([("Morning Ride", 401)], start: jan2).write(to: dir.appendingPathComponent("2026-01-02.gpx"), atomically: false, encoding: .utf8)
        try Self.gpx([("Morning Ride", 401)], start: jan2 - 86_400).write(to: dir.appendingPathComponent("2026-01-01.gpx"), atomically: false, encoding: .utf8)
        try Self.gpx([("Lap", 5), ("Lap", 5), (nil, 5)], start: jan2 - 2 * 86_400).write(to: dir.appendingPathComponent("b/2026-01-01.gpx"), atomically: false, encoding: .utf8)
        let r = try Tools.shell("cd '\(dir.path)' && gpx2fix 2026-01-02.gpx 2026-01-01.gpx b/2026-01-01.gpx | fixstats")
        #expect(r.status == 0, "\(r.stderr)")
        let traces = try Tools.objects(r.stdout).map { "\($0["trace"] ?? "") \($0["fixes"] ?? "")" }
        #expect(traces == ["Morning Ride 401", "Morning Ride (2026-01-01.gpx) 401", "Lap 5", "Lap (2026-01-01.gpx) 5", "2026-01-01.gpx 5"])
        let f = try Tools.shell("cd '\(dir.path)' && gpx2fix 2026-01-02.gpx 2026-01-01.gpx | fixfilter --min-move off --stats | wc -l")
        #expect(f.out.trimmingCharacters(in: .whitespacesAndNewlines) == "802")
        #expect(f.stderr.contains("age 0"), "\(f.stderr)")
        #expect(!f.stderr.contains("back in time"))
    }

    /// Two NMEA logs of one file name in two folders: two traces.
    @Test func nmeaLogsOfOneName() throws {
        let dir = TestScratch.root.appendingPathComponent("fixkit-names-\(UUID().uuidString)")
        for sub in ["a", "b"] { try FileManager.default.createDirectory(at: dir.appendingPathComponent(sub), withIntermediateDirectories: true) }
        defer { try? FileManager.default.removeItem(at: dir) }
        let log = "$GPRMC,092750.000,A,5321.6802,N,00630.3372,W,0.02,31.66,280511,,,A*43\n"
        for sub in ["a", "b"] { try log.write(to: dir.appendingPathComponent("\(sub)/gps.nmea"), atomically: false, encoding: .utf8) }
        let r = try Tools.shell("cd '\(dir.path)' && gpx2fix a/gps.nmea b/gps.nmea")
        let traces = try Tools.objects(r.stdout).compactMap { $0["trace"] as? String }
        #expect(traces == ["gps.nmea", "gps.nmea (2)"])
    }

    /// A trace whose time jumps back by more than --max-age: said once, at the run's start.
    @Test func fixfilterSaysWhenATraceGoesBack() throws {
        var lines: [String] = []
        for (day, count) in [(2, 5), (1, 5)] {
            for k in 0..<count {
                lines.append(#"{"time":"2026-01-0\#(day)T07:00:0\#(k)Z","lat":47.\#(1000 + k * 3),"lon":8.5,"trace":"Morning Ride"}"#)
            }
        }
        lines.append(#"{"time":"2026-01-01T07:00:06Z","lat":47,"lon":8,"trace":"other"}"#)
        let r = try Tools.run("fixfilter", ["--min-move", "off", "-"], stdin: Data((lines.joined(separator: "\n") + "\n").utf8))
        #expect(r.status == 0)
        #expect(r.lines.count == 6)
        #expect(
            r.stderr
                == "fixfilter: -:6: trace \"Morning Ride\" goes back in time from 2026-01-02T07:00:04Z to 2026-01-01T07:00:00Z, more than --max-age (15 s): its fixes are rejected as age until they are newer than that (two recordings with one trace name?); said once per trace\n"
        )
        // One stale fix alone is not a run: nothing said.
        let one = try Tools.run("fixfilter", ["--min-move", "off"], stdin: Data((lines[0...5].joined(separator: "\n") + "\n").utf8))
        #expect(one.stderr.isEmpty)
    }
}
