import Foundation
import Testing

@testable import FixKit

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// How a run ends (issue 15, defects 3 and 4): visits says where time goes backwards and what
/// it did about it; every writer closes what it opened whether the run ends normally, at the
/// first problem under --strict, or at an input that fails part way.
@Suite("Time going backwards in visits; documents closed however a run ends")
struct RunEndTests {
    /// A stay of `seconds` at one place, then a walk away: fixes one a second, on `trace`.
    static func day(trace: String?, start: Double, seconds: Int = 1200, seed: UInt64) -> [(Double, String)] {
        var g = FixGenerator(seed: seed)
        var out: [(Double, String)] = []
        for k in 0..<seconds + 300 {
            let t = start + Double(k)
            let north = k < seconds ? (Double(g.nextUInt() % 1000) / 1000 - 0.5) * 10 : Double(k - seconds) * 1.4
            let lat = 51.5 + north / 111_000
            let tr = trace.map { #","trace":"\#($0)""# } ?? ""
            out.append((t, #"{"time":"\#(Timestamp(seconds: t).rfc3339)","lat":\#(lat),"lon":-0.12,"hacc":10\#(tr)}"#))
        }
        return out
    }

    static func input(_ lines: [String]) -> Data { Data((lines.joined(separator: "\n") + "\n").utf8) }

    /// The model: per trace, a fix older than the last one kept is skipped.
    static func skipped(_ fixes: [(trace: String?, time: Double)]) -> (count: Int, firstLine: Int?) {
        var last: [String: Double] = [:]
        var count = 0
        var first: Int?
        for (k, f) in fixes.enumerated() {
            let key = f.trace ?? "\u{0}"
            if let l = last[key], f.time < l {
                count += 1
                if first == nil { first = k + 1 }
            } else {
                last[key] = f.time
            }
        }
        return (count, first)
    }

    @Test(
        "Reversed, shuffled or partly swapped input: the line where time first goes back, what was done, and the count",
        arguments: 0..<6)
    func timeGoesBack(_ variant: Int) throws {
        let a = Self.day(trace: variant % 2 == 0 ? "a" : nil, start: 1_767_258_000, seed: 1)
        let b = Self.day(trace: "b", start: 1_767_258_000 + 200, seed: 2)
        var fixes: [(trace: String?, time: Double, line: String)] = []
        // Two traces interleaved in time order: each alone is in order.
        var i = 0
        var j = 0
        while i < a.count || j < b.count {
            if j >= b.count || (i < a.count && a[i].0 <= b[j].0) {
                fixes.append((variant % 2 == 0 ? "a" : nil, a[i].0, a[i].1))
                i += 1
            } else {
                fixes.append(("b", b[j].0, b[j].1))
                j += 1
            }
        }
        var g = FixGenerator(seed: UInt64(variant) + 40)
        switch variant / 2 {
        case 0: fixes.reverse()
        case 1:
            for k in stride(from: fixes.count - 1, to: 0, by: -1) { fixes.swapAt(k, Int(g.nextUInt() % UInt64(k + 1))) }
        default:
            // A few pairs swapped within one trace: one step back each.
            for _ in 0..<5 {
                let k = 100 + Int(g.nextUInt() % UInt64(fixes.count - 200))
                if let n = fixes[(k + 1)...].firstIndex(where: { $0.trace == fixes[k].trace }) { fixes.swapAt(k, n) }
            }
        }
        let model = Self.skipped(fixes.map { ($0.trace, $0.time) })
        try #require(model.count > 0)
        let r = try Tools.run("visits", [], stdin: Self.input(fixes.map(\.line)))
        #expect(r.status == 1, "\(r.stderr)")
        let messages = r.stderr.split(separator: "\n").map(String.init)
        let back = messages.filter { $0.contains("time goes back") }
        #expect(back.count == 1, "\(r.stderr)")
        #expect(back.first?.hasPrefix("visits: -:\(model.firstLine ?? 0): time goes back from ") == true, "\(r.stderr)")
        #expect(back.first?.contains("fix skipped") == true)
        if model.count > 1 {
            #expect(
                messages.contains {
                    $0.hasPrefix(
                        "visits: \(model.count) fixes older than the last kept on their trace skipped, the first at -:\(model.firstLine ?? 0)"
                    )
                }, "\(r.stderr)")
        }
        // What is kept is what a run on the kept fixes alone gives.
        var last: [String: Double] = [:]
        let kept = fixes.filter { f in
            let key = f.trace ?? "\u{0}"
            if let l = last[key], f.time < l { return false }
            last[key] = f.time
            return true
        }
        let alone = try Tools.run("visits", [], stdin: Self.input(kept.map(\.line)))
        #expect(alone.status == 0 && alone.stderr.isEmpty, "\(alone.stderr)")
        #expect(alone.stdout == r.stdout)
        // --strict stops at that line.
        let strict = try Tools.run("visits", ["--strict"], stdin: Self.input(fixes.map(\.line)))
        #expect(strict.status == 1)
        #expect(strict.stderr.split(separator: "\n").count == 1, "\(strict.stderr)")
    }

    @Test("Input in time order, equal times included: no message")
    func inOrderIsQuiet() throws {
        let lines = Self.day(trace: "a", start: 1_767_258_000, seed: 3).map(\.1)
        let doubled = lines.flatMap { [$0, $0] }  // each time twice: not backwards
        let r = try Tools.run("visits", [], stdin: Self.input(doubled))
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        #expect(r.lines.count == 1)
    }

    /// Whether `data` is one well-formed XML document.
    static func wellFormedXML(_ data: Data) -> Bool { XMLParser(data: data).parse() }

    /// Whether `data` is one JSON text.
    static func oneJSON(_ data: Data) -> Bool { (try? JSONSerialization.jsonObject(with: data)) != nil }

    /// Every line one JSON object, the last one ended.
    static func wholeLines(_ data: Data) -> Bool {
        guard data.isEmpty || data.last == 0x0A else { return false }
        return (try? Tools.objects(data)) != nil
    }

    static let readFailure = FileManager.default.isReadableFile(atPath: "/proc/self/mem")

    @Test(
        "Every writer's output is whole after --strict stops it, after a failed read, and after time goes back",
        arguments: [
            ("visits --geojson --min-stay 10", "json"), ("visits", "lines"), ("fix2gpx", "xml"),
            ("fix2gpx --geojson", "json"), ("fix2gpx --xcode", "xml"), ("fencerule --fences f.json", "lines"),
            ("fencerule --fences f.json --trace", "lines"), ("fixfilter", "lines"), ("fixstats", "lines"),
        ])
    func writersClose(_ command: String, _ kind: String) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fixkit-ends-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let day = Self.day(trace: "a", start: 1_767_258_000, seed: 5).map(\.1)
        try Self.input(day).write(to: dir.appendingPathComponent("day.ndjson"))
        try Self.input(Array(day[..<700]) + ["{\"lat\":"] + Array(day[700...])).write(
            to: dir.appendingPathComponent("bad.ndjson"))
        try Self.input(day.reversed()).write(to: dir.appendingPathComponent("back.ndjson"))
        try Data(#"[{"id":"a","lat":51.5,"lon":-0.12,"radius":50}]"#.utf8).write(
            to: dir.appendingPathComponent("f.json"))
        var runs = ["--strict bad.ndjson", "--strict back.ndjson", "bad.ndjson", "day.ndjson"]
        if Self.readFailure { runs += ["day.ndjson /proc/self/mem day.ndjson", "--strict day.ndjson /proc/self/mem"] }
        for run in runs {
            let r = try Tools.shell("cd '\(dir.path)' && \(command) \(run)")
            let whole: Bool
            switch kind {
            case "xml": whole = Self.wellFormedXML(r.stdout)
            case "json": whole = Self.oneJSON(r.stdout)
            default: whole = Self.wholeLines(r.stdout)
            }
            #expect(whole, "\(command) \(run): \(r.out.suffix(200)) \(r.stderr)")
            if run.contains("/proc/self/mem") {
                #expect(r.stderr.contains("/proc/self/mem: cannot read: "), "\(r.stderr)")
                #expect(r.status == 1)
            }
        }
        if Self.readFailure, command == "fixfilter" {
            // The input after the one that failed is still read.
            let r = try Tools.shell(
                "cd '\(dir.path)' && fixfilter --min-move off --max-age off day.ndjson /proc/self/mem day.ndjson")
            #expect(r.lines.count == 2 * day.count, "\(r.stderr)")
        }
    }
}
