import Foundation
import Testing

@testable import FixKit

/// SPEC "Many machines": every tool keeps state per trace only, so running it on each trace
/// alone and putting the outputs together gives the same records as one run over all of
/// them, in the same order within each trace. Checked for every tool that keeps state, over
/// generated walks and corpus files interleaved at random (each trace's own order kept).
struct PartitionTests {
    /// Interleaves the traces' lines at random, keeping each trace's order.
    static func interleave(_ groups: [[String]], seed: UInt64) -> [String] {
        var g = SeededRandom(seed: seed)
        var next = [Int](repeating: 0, count: groups.count)
        var out: [String] = []
        var open = groups.indices.filter { !groups[$0].isEmpty }
        while !open.isEmpty {
            let pick = Int(g.next() % UInt64(open.count))
            let k = open[pick]
            // Runs of a few fixes, as devices uploading in batches write them.
            for _ in 0..<(1 + Int(g.next() % 4)) where next[k] < groups[k].count {
                out.append(groups[k][next[k]])
                next[k] += 1
            }
            if next[k] == groups[k].count { open.remove(at: pick) }
        }
        return out
    }

    static func trace(of line: String) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return "(not JSON)" }
        return object["trace"] as? String
    }

    /// Generated: walks with stops (visits), near fences (fencerule), with stale repeats
    /// (fixfilter's age rule) and one walk without a trace.
    static func generated() throws -> [[String]] {
        var groups: [[String]] = []
        var g = SeededRandom(seed: 41)
        for k in 0..<8 {
            let east = Int(g.next() % 600) + 100
            let r = try Tools.run("fixsim", [
                "--origin", "51.5,-0.12", "--route", "-\(east),\(k * 20):0,0:0,0:\(east),\(k * 30)", "--pause", "\(300 + k * 60)",
                "--seed", "\(k + 1)", "--name", "walk \(k)", "--speed", "\(1 + k)",
            ])
            var lines = r.lines
            for i in stride(from: 50, to: lines.count, by: 97) { lines.insert(lines[i - 40], at: i) }  // stale repeats
            if k == 7 { lines = lines.map { $0.replacingOccurrences(of: #","trace":"walk 7""#, with: "") } }
            groups.append(lines)
        }
        return groups
    }

    /// The corpus: rides and logs from several producers, each file a trace.
    static func corpus() throws -> [[String]] {
        guard let corpus = Tools.corpus else { return [] }
        let files = [
            "gpx/gpxpy__test_files__around-visnjan-with-car.gpx", "gpx/georust-gpx__tests__fixtures__garmin-activity.gpx",
            "gpx/gpxgo__test_files__visnjan.gpx", "gpx/togeojson__test__data__blue_hills.gpx",
            "nmea/gpsd__test__daemon__ublox-neo-m9n-nmea.log", "nmea/gpsd__test__daemon__st-teseo-liv4f.log",
        ].map { corpus.appendingPathComponent($0).path }
        let r = try Tools.run("gpx2fix", files)
        var groups: [String?: [String]] = [:]
        var order: [String?] = []
        for line in r.lines {
            let t = trace(of: line)
            if groups[t] == nil { order.append(t) }
            groups[t, default: []].append(line)
        }
        return order.compactMap { groups[$0] }
    }

    static let fences = #"[{"id":"home","lat":51.5,"lon":-0.12,"radius":60},{"id":"east","lat":51.5003,"lon":-0.114,"radius":80},{"id":"west","lat":51.5002,"lon":-0.127,"radius":80},{"id":"far","lat":45.27,"lon":13.72,"radius":500}]"#

    static let tools: [(String, [String])] = [
        ("fixfilter", []), ("fixfilter", ["--min-move", "3", "--max-age", "5", "--max-hacc", "20"]),
        ("fencerule", ["--fences", "FENCES"]), ("fencerule", ["--fences", "FENCES", "--rule", "adaptive"]),
        ("visits", []), ("visits", ["--radius", "30", "--min-stay", "120"]),
        ("fixstats", []), ("fixstats", ["--climb-threshold", "2", "--max-gap", "10"]),
    ]

    func check(_ groups: [[String]], seed: UInt64) throws {
        let dir = TestScratch.root.appendingPathComponent("fixkit-partition-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let fences = dir.appendingPathComponent("fences.json")
        try Self.fences.write(to: fences, atomically: false, encoding: .utf8)
        let all = Self.interleave(groups, seed: seed)
        #expect(all.count == groups.map(\.count).reduce(0, +))
        let allData = Data((all.joined(separator: "\n") + "\n").utf8)
        let parts = groups.map { Data(($0.joined(separator: "\n") + "\n").utf8) }
        for (tool, arguments) in Self.tools {
            let args = arguments.map { $0 == "FENCES" ? fences.path : $0 }
            let whole = try Tools.run(tool, args, stdin: allData)
            var byTrace: [String?: [String]] = [:]
            for line in whole.lines { byTrace[Self.trace(of: line), default: []].append(line) }
            var total = 0
            for (group, part) in zip(groups, parts) {
                let alone = try Tools.run(tool, args, stdin: part)
                let t = Self.trace(of: group[0])
                #expect(alone.lines == (byTrace[t] ?? []), "\(tool) \(arguments.joined(separator: " ")): trace \(t ?? "(none)") differs alone")
                #expect(alone.status == whole.status || whole.status == 1)
                total += alone.lines.count
            }
            #expect(total == whole.lines.count, "\(tool) \(arguments.joined(separator: " ")): \(total) records alone, \(whole.lines.count) together")
            #expect(total > 0, "\(tool) wrote nothing: the check would prove nothing")
        }
        // fix2gpx: the tracks of one run are the tracks of the runs alone, in the order the
        // traces first appear.
        func body(_ gpx: String) -> Substring {
            guard let a = gpx.range(of: "  <trk>"), let b = gpx.range(of: "</gpx>", options: .backwards) else { return "" }
            return gpx[a.lowerBound..<b.lowerBound]
        }
        let whole = try Tools.run("fix2gpx", [], stdin: allData)
        var firstSeen: [Int] = []
        var seen = Set<String?>()
        for line in all where seen.insert(Self.trace(of: line)).inserted {
            if let k = groups.firstIndex(where: { Self.trace(of: $0[0]) == Self.trace(of: line) }) { firstSeen.append(k) }
        }
        var joined = ""
        for k in firstSeen { joined += body(try Tools.run("fix2gpx", [], stdin: parts[k]).out) }
        #expect(body(whole.out) == Substring(joined))
        #expect(!joined.isEmpty)
    }

    @Test func generatedStreams() throws {
        let groups = try Self.generated()
        try check(groups, seed: 1)
        try check(groups, seed: 2)
    }

    @Test(.enabled(if: Tools.corpus != nil, Comment(rawValue: Tools.corpusMissing)))
    func corpusStreams() throws {
        let groups = try Self.corpus()
        #expect(groups.count >= 6)
        try check(groups, seed: 3)
    }
}
