import Foundation
import Testing

@testable import FixKit

/// fix2gpx over interleaved traces: one <trk> per trace, --split DIR, --only, --xcode with
/// several traces, and the spool that holds the others.
struct Fix2GpxSplitTests {
    static func temporaryDirectory() throws -> URL {
        let dir = TestScratch.root.appendingPathComponent("fixkit-split-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Three interleaved fixsim walks (once 2,658 tracks): three <trk>, valid GPX 1.1, and
    /// gpx2fix gives back every fix, each trace's in its order.
    @Test func interleavedTracesOneTrackEach() throws {
        // fixsim writes one walk after the other: interleaved by time, as three devices would be.
        let sim = try Tools.shell("fixsim --origin 47,8 --route 0,0:500,0:500,500 --traces 3 | sort -s -t, -k1,1")
        let fixes = sim.lines
        #expect(fixes.count == 2145)
        let firstThree = fixes.prefix(3).map { line in ["sim-1", "sim-2", "sim-3"].first { line.contains("\"\($0)\"") } ?? "" }
        #expect(Set(firstThree) == ["sim-1", "sim-2", "sim-3"])  // interleaved
        let gpx = try Tools.run("fix2gpx", [], stdin: sim.stdout)
        #expect(gpx.status == 0)
        #expect(gpx.out.components(separatedBy: "<trk>").count - 1 == 3)
        let back = try Tools.run("gpx2fix", [], stdin: gpx.stdout).lines
        for t in ["sim-1", "sim-2", "sim-3"] {
            #expect(back.filter { $0.contains("\"\(t)\"") } == fixes.filter { $0.contains("\"\(t)\"") })
        }
        #expect(back.count == fixes.count)
    }

    /// A trace whose seg goes back is written as a second <trk> marked continued, which
    /// gpx2fix reads as the same trace (not a second recording of that name).
    @Test func segmentsGoingBackStayOneTrace() throws {
        let input = [
            #"{"lat":1,"lon":2,"trace":"a","seg":0}"#, #"{"lat":1,"lon":2.1,"trace":"b"}"#, #"{"lat":1,"lon":2.2,"trace":"a","seg":1}"#,
            #"{"lat":1,"lon":2.3,"trace":"a","seg":0}"#, #"{"lat":1,"lon":2.4,"trace":"a"}"#,
        ]
        let r = try Tools.shell("printf '%s\\n' '\(input.joined(separator: "' '"))' | fix2gpx | gpx2fix")
        #expect(r.lines == [input[0], input[2], input[3], input[4], input[1]])
    }

    /// The spool over its memory bound: many traces, round-robin, through a 1 KiB spool.
    @Test func spoolSpillsAndGivesBackInOrder() throws {
        var spool = TraceSpool(memoryLimit: 1024)
        defer { spool.close() }
        let ks = (0..<50).map { _ in spool.add() }
        var expected = [[UInt8]](repeating: [], count: 50)
        var g = SeededRandom(seed: 3)
        for n in 0..<5000 {
            let k = Int(g.next() % 50)
            let bytes = Array("\(k):\(n);".utf8)
            expected[k] += bytes
            try spool.append(ks[k]) { $0 += bytes }
        }
        let path = TestScratch.root.appendingPathComponent("fixkit-spool-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        for k in 0..<50 {
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            let sink = OutputSink(fd: fd)
            try spool.drain(ks[k], to: sink)
            try sink.flush()
            close(fd)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(expected[k]))
        }
    }

    @Test func splitNames() {
        var n = SplitFileNames(fileExtension: "gpx")
        #expect(n.name(for: "Morning Ride (ride.gpx)") == "Morning_Ride_ride.gpx.gpx")
        #expect(n.name(for: "morning ride (ride.gpx)") == "morning_ride_ride.gpx-2.gpx")  // alike but for case
        #expect(n.name(for: "../../etc/passwd") == "etc_passwd.gpx")
        #expect(n.name(for: "Zürich → 東京 😀") == "Zürich_東京.gpx")
        #expect(n.name(for: nil) == "untraced.gpx")
        #expect(n.name(for: "...") == "trace.gpx")
        #expect(n.name(for: "") == "trace-2.gpx")
        #expect(n.name(for: "con") == "con_.gpx")
        #expect(n.name(for: "a\u{0}b\nc/d\\e") == "a_b_c_d_e.gpx")
        #expect(n.name(for: String(repeating: "é", count: 80)).utf8.count == 100 + 4)
    }

    /// --split: one file each, listed on standard output, each reading back as its trace.
    @Test func split() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = [
            #"{"time":"2026-01-01T09:00:00Z","lat":1,"lon":2,"trace":"Morning Ride","seg":0}"#,
            #"{"time":"2026-01-01T09:00:00Z","lat":3,"lon":4,"trace":"a/b"}"#,
            #"{"time":"2026-01-01T09:00:01Z","lat":1,"lon":2.001,"trace":"Morning Ride","seg":0}"#,
            #"{"time":"2026-01-01T09:00:02Z","lat":3,"lon":4.001,"trace":"morning ride"}"#,
        ]
        let out = dir.appendingPathComponent("rides")
        let r = try Tools.run("fix2gpx", ["--split", out.path], stdin: Data((input.joined(separator: "\n") + "\n").utf8))
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.lines == ["Morning_Ride.gpx", "a_b.gpx", "morning_ride-2.gpx"].map { out.path + "/" + $0 })
        let first = try Tools.run("gpx2fix", [out.appendingPathComponent("Morning_Ride.gpx").path])
        #expect(first.lines == [input[0], input[2]])
        let second = try Tools.run("gpx2fix", [out.appendingPathComponent("a_b.gpx").path])
        #expect(second.lines == [input[1]])
        // --xcode --split: a simulation file per trace.
        let x = try Tools.run("fix2gpx", ["--xcode", "--split", out.path, "--only", "a/b"], stdin: Data((input.joined(separator: "\n") + "\n").utf8))
        #expect(x.lines == [out.path + "/a_b.gpx"])
        #expect(try String(contentsOf: out.appendingPathComponent("a_b.gpx"), encoding: .utf8).contains("creator=\"Xcode\""))
        // Not a directory: exit 2.
        let bad = try Tools.run("fix2gpx", ["--split", out.appendingPathComponent("a_b.gpx").path], stdin: Data())
        #expect(bad.status == 2 && bad.out.isEmpty)
    }

    /// --xcode with several traces: the first is written, the error names them all; --only
    /// picks one.
    @Test func xcodeWithSeveralTraces() throws {
        let input = [
            #"{"time":"2026-01-01T09:00:00Z","lat":1,"lon":2,"trace":"walk"}"#,
            #"{"time":"2026-01-01T09:00:00Z","lat":3,"lon":4,"trace":"ride"}"#,
            #"{"time":"2026-01-01T09:00:01Z","lat":1,"lon":2.001,"trace":"walk"}"#,
        ]
        let data = Data((input.joined(separator: "\n") + "\n").utf8)
        let r = try Tools.run("fix2gpx", ["--xcode"], stdin: data)
        #expect(r.status == 1)
        #expect(r.out.components(separatedBy: "<wpt").count - 1 == 2)
        #expect(
            r.stderr
                == "fix2gpx: the input has 2 traces, and an Xcode simulation file plays one: \"walk\" (2 fixes, written), \"ride\" (1 fix); only the first was written: pick one with --only NAME, or write a file each with --split DIR\n"
        )
        let only = try Tools.run("fix2gpx", ["--xcode", "--only", "ride"], stdin: data)
        #expect(only.status == 0 && only.stderr.isEmpty)
        #expect(only.out.contains("<wpt lat=\"3\" lon=\"4\">"))
        #expect(!only.out.contains("lat=\"1\""))
    }
}
