import Foundation
import Testing

/// contrib/spark/fixkit_pipe.py: fixes keyed by trace, repartitioned so that each trace lives
/// whole in one partition in time order, `fixfilter | fixstats` run unchanged through
/// RDD.pipe in local[2], against one single-process run over the same fixes.
struct SparkPipeTests {
    static let script = Tools.packageRoot.appendingPathComponent("contrib/spark/fixkit_pipe.py")

    static let missing: String? = {
        guard Tools.which("java") != nil else {
            return "java is not installed (apt-get install openjdk-17-jre-headless): the Spark test is skipped"
        }
        guard Tools.which("python3") != nil,
            (try? Tools.shell("python3 -c 'import pyspark'"))?.status == 0
        else { return "pyspark is not installed (pip install pyspark): the Spark test is skipped" }
        return nil
    }()

    /// 2,000 traces of 8 to 15 fixes, interleaved in runs of a few fixes as uploads arrive.
    /// Each trace is in time order, its times written in UTC or another zone, with or without
    /// milliseconds (the sort must compare instants, not strings), a third with a time twice
    /// (the sort must be stable), fixes too inaccurate for fixfilter, and one trace without
    /// a name.
    static func fixes() -> [String] {
        var g = FixGenerator(seed: 2000)
        var groups: [[String]] = []
        let start = 1_767_258_000  // 2026-01-01T09:00:00Z
        for k in 0..<2000 {
            var lines: [String] = []
            var ms = (start + k * 37) * 1000
            var lat = 45 + g.unit(), lon = 4 + g.unit()
            let trace = k == 1999 ? "" : #","trace":"ride \#(k % 1500)\#(k >= 1500 ? " again" : "")""#
            for i in 0..<(8 + Int(g.nextUInt() % 8)) {
                // Every trace in time order (Spark sorts each by time, one run takes the input
                // order), a third with one time twice.
                if !(i == 5 && k % 3 == 0) {
                    ms += 1000 * (1 + Int(g.nextUInt() % 20)) + (g.chance(0.5) ? 0 : Int(g.nextUInt() % 1000))
                }
                lat += (g.unit() - 0.5) * 0.0004
                lon += (g.unit() - 0.5) * 0.0004
                let time = Self.iso(milliseconds: ms, zone: g.chance(0.5) ? 0 : 3600)
                let hacc = g.chance(0.1) ? 250 : 3 + Int(g.nextUInt() % 20)
                lines.append(
                    #"{"time":"\#(time)","lat":\#(lat),"lon":\#(lon),"alt":\#(100 + i),"hacc":\#(hacc)\#(trace)}"#)
            }
            groups.append(lines)
        }
        return PartitionTests.interleave(groups, seed: 2000)
    }

    static let utc = formatter(zone: 0, "yyyy-MM-dd'T'HH:mm:ss'Z'")
    static let plusOne = formatter(zone: 3600, "yyyy-MM-dd'T'HH:mm:ssxxx")

    static func formatter(zone: Int, _ format: String) -> DateFormatter {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(secondsFromGMT: zone)
        f.dateFormat = format
        return f
    }

    /// `ms` milliseconds after 1970 as ISO 8601, in UTC or an hour east of it, with a
    /// fraction only when there is one.
    static func iso(milliseconds ms: Int, zone: Int) -> String {
        let whole = (zone == 0 ? utc : plusOne).string(from: Date(timeIntervalSince1970: TimeInterval(ms / 1000)))
        guard ms % 1000 != 0 else { return whole }
        let fraction = "." + String(String(1000 + ms % 1000).dropFirst())
        let zoneStart = zone == 0 ? whole.index(before: whole.endIndex) : whole.index(whole.endIndex, offsetBy: -6)
        return whole[..<zoneStart] + fraction + whole[zoneStart...]
    }

    @Test(.enabled(if: SparkPipeTests.missing == nil, Comment(rawValue: SparkPipeTests.missing ?? "")))
    func pipeMatchesOneRun() throws {
        let dir = TestScratch.root.appendingPathComponent("fixkit-spark-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("fixes.ndjson")
        let fixes = Self.fixes()
        try (fixes.joined(separator: "\n") + "\n").write(to: input, atomically: false, encoding: .utf8)

        let one = try Tools.run("fixfilter", [input.path])
        try #require(one.status == 0, "\(one.stderr)")
        let expected = try Tools.run("fixstats", [], stdin: one.stdout)
        try #require(expected.status == 0)
        #expect(expected.lines.count == 2000)
        #expect(one.lines.count < fixes.count, "fixfilter rejected nothing: the check is weaker than meant")

        let output = dir.appendingPathComponent("out")
        let r = try Tools.shell(
            "cd \(dir.path) && HOME=\(dir.path) python3 \(Self.script.path) --master 'local[2]' --partitions 4 "
                + "'fixfilter | fixstats' \(output.path) \(input.path) 2>spark.log || { tail -40 spark.log; exit 1; }")
        try #require(r.status == 0, "fixkit_pipe.py failed: \(r.out)")
        var got: [String] = []
        var parts = 0
        for file in try FileManager.default.contentsOfDirectory(atPath: output.path).sorted()
        where file.hasPrefix("part-") {
            let text = try String(contentsOf: output.appendingPathComponent(file), encoding: .utf8)
            let lines = text.split(separator: "\n").map(String.init)
            parts += lines.isEmpty ? 0 : 1
            got += lines
        }
        #expect(parts > 1, "one partition held every trace: the split is not tested")
        // Partitions hold traces by a hash, and each writes its records in the order its
        // traces first appear, so only the order of the traces differs from one run's: the
        // records are compared as sorted lists.
        #expect(got.count == expected.lines.count)
        #expect(got.sorted() == expected.lines.sorted())
    }
}
