import Foundation
import Testing

@testable import FixKit

/// The per-trace store the stateful tools share, checked against a dictionary keyed by the
/// names' bytes (the independent model), and what it allows: visits parking a quiet trace's
/// stays with the same visits as keeping them, and fixplot's bounded picture.
@Suite("TraceStore")
struct TraceStoreTests {
    /// Names that stress the keying: the empty name, one byte, NFC and NFD spellings of one
    /// text (equal as `String`s, different bytes), Latin-1 bytes (ByteText stand-ins), names
    /// that share prefixes, and enough of them to grow the table several times.
    static let names: [String?] = {
        var n: [String?] = [nil, "", "a", "caf\u{E9}", "cafe\u{301}", "day-00001", "day-00001 ", "day-0000"]
        for latin1 in [[0x72, 0xE9, 0x64, 0x65], [0x72, 0xE8, 0x64, 0x65]] as [[UInt8]] {
            n.append(latin1.withUnsafeBufferPointer { ByteText.decode($0) })
        }
        for k in 0..<300 { n.append("trace-\(k)") }
        return n
    }()

    @Test("Counts per name, and the order of first appearance, match a dictionary keyed by bytes")
    func matchesDictionaryOfBytes() {
        #expect(TraceStoreTests.names[3] == TraceStoreTests.names[4], "NFC and NFD are one String")
        var g = FixGenerator(seed: 15)
        for round in 0..<20 {
            var store = TraceStore(make: { (_: String?) in 0 })
            var model: [[UInt8]?: Int] = [:]
            var order: [[UInt8]?] = []
            // Runs of one trace (as streams carry), and switches at random.
            var k = 0
            for _ in 0..<(round == 0 ? 50 : 3000) {
                if g.unit() < 0.3 { k = Int(g.unit() * Double(TraceStoreTests.names.count)) }
                let name = TraceStoreTests.names[k]
                let key = name.map { Array($0.utf8) }
                if model[key] == nil { order.append(key) }
                model[key, default: 0] += 1
                store.withState(name) { $0 += 1 }
            }
            #expect(store.count == model.count)
            var seen: [[UInt8]?] = []
            store.forEach { name, count in
                let key = name.map { Array($0.utf8) }
                seen.append(key)
                #expect(model[key] == count, "\(String(describing: name))")
            }
            #expect(seen == order)
            for name in TraceStoreTests.names {
                #expect(store.state(name) == model[name.map { Array($0.utf8) }])
            }
        }
    }

    @Test("Idle traces: a state is handed to shrink once the clock passes its deadline, and not while it is current")
    func idle() {
        // A state is its last time; the deadline is 10 s after it.
        var store = TraceStore(make: { (_: String?) in -1.0 }, idleDeadline: { $0 < 0 ? nil : $0 + 10 })
        var shrunk: [Double] = []
        func fix(_ trace: String, _ t: Double) {
            store.withState(trace) { $0 = t }
            store.shrinkIdle(clock: t) { state in
                shrunk.append(state)
                state = -1
            }
        }
        fix("a", 0)
        fix("a", 5)
        fix("b", 6)  // a queued, deadline 15
        fix("b", 15)
        #expect(shrunk.isEmpty)
        fix("b", 15.5)
        #expect(shrunk == [5])
        fix("c", 100)  // b queued at 25.5: due at once, once c's clock passes it
        fix("c", 101)
        #expect(shrunk == [5, 15.5])
        // A trace that comes back is queued anew when left, with its new deadline.
        fix("a", 102)
        fix("c", 103)
        fix("c", 112)
        #expect(shrunk == [5, 15.5])
        fix("c", 112.5)
        #expect(shrunk == [5, 15.5, 102])
        // The current trace is never shrunk, however late the clock.
        store.shrinkIdle(clock: 1e9) { shrunk.append($0) }
        #expect(shrunk == [5, 15.5, 102])
    }

    // MARK: - visits: parking a quiet trace

    /// A random single-trace log of stays and moves: fixes every 1-90 s, stays of 0-3 hours at
    /// places 0-2 km apart, some gaps longer than max-gap.
    static func log(seed: UInt64) -> [(lat: Double, lon: Double, hacc: Double, t: Double)] {
        var g = FixGenerator(seed: seed)
        var out: [(Double, Double, Double, Double)] = []
        var t = 1_772_352_000.0
        var place = (51.5, -0.12)
        for _ in 0..<Int(2 + g.unit() * 5) {
            let stay = g.unit() * 3 * 3600
            let end = t + stay
            while t < end {
                let d = 1e-4 * (g.unit() - 0.5)
                out.append((place.0 + d, place.1 + d, 10 + g.unit() * 40, t))
                t += 1 + g.unit() * 89
            }
            if g.unit() < 0.3 { t += 3600 + g.unit() * 7200 }
            let steps = Int(g.unit() * 600)
            let (dlat, dlon) = ((g.unit() - 0.5) * 2e-5, (g.unit() - 0.5) * 2e-5)
            for _ in 0..<steps {
                place = (place.0 + dlat, place.1 + dlon)
                out.append((place.0, place.1, 5, t))
                t += 1
            }
        }
        return out
    }

    @Test(
        "StayDetector parked and woken anywhere, any number of times, writes exactly what it writes unparked",
        arguments: 0..<40)
    func parkingIsExact(seed: Int) throws {
        let fixes = TraceStoreTests.log(seed: UInt64(seed) + 100)
        let settings = StaySettings()
        let spool = StaySpool()
        var g = FixGenerator(seed: UInt64(seed))
        var kept = StayDetector(settings: settings, trace: "t")
        var parked = StayDetector(settings: settings, trace: "t")
        var a: [Visit] = []
        var b: [Visit] = []
        var parks = 0
        var largest = 0
        for f in fixes {
            let time = Timestamp(seconds: f.t)
            kept.add(lat: f.lat, lon: f.lon, hacc: f.hacc, time: time) { a.append($0) }
            parked.add(lat: f.lat, lon: f.lon, hacc: f.hacc, time: time) { b.append($0) }
            if g.unit() < 0.05 {
                let before = parked.parkableBytes
                largest = max(largest, before)
                try parked.park(in: spool)
                #expect(
                    parked.isParked && parked.parkableBytes <= 64, "only the fixed-size part is left (\(before) before)"
                )
                if g.unit() < 0.3 { try parked.park(in: spool) }  // parking twice is parking once
                try parked.unpark(from: spool)
                #expect(!parked.isParked && parked.parkableBytes == before)
                parks += 1
            }
        }
        try parked.park(in: spool)
        try parked.unpark(from: spool)
        kept.finish { a.append($0) }
        parked.finish { b.append($0) }
        #expect(a == b, "seed \(seed): \(parks) parks")
        #expect(!a.isEmpty || fixes.count < 100)
        // One region a detector, reused and grown by half each time it is too small: the file
        // holds at most 4.5 times the largest parked state (1.5 + 1.5 + 0.75 + ...), however
        // many parks, where a file written anew at every park would hold their sum.
        let bound = Int64(9 * (max(largest, parked.parkableBytes) + 14 * 8) / 2)
        #expect(spool.size <= bound, "\(spool.size) bytes after \(parks) parks, the largest \(largest)")
    }

    @Test("StaySpool: a region is reused while what is parked fits, and a cut-short file is an error, not a wrong stay")
    func spoolRegions() throws {
        let spool = StaySpool()
        let r1 = try spool.store([UInt8](repeating: 1, count: 1000), reusing: nil)
        #expect(r1.offset == 0 && r1.capacity == 1500 && r1.count == 1000)
        let r2 = try spool.store([UInt8](repeating: 2, count: 1400), reusing: r1)
        #expect(r2.offset == 0 && r2.count == 1400, "fits: the same region")
        let other = try spool.store([UInt8](repeating: 3, count: 10), reusing: nil)
        #expect(other.offset == 1500, "past the first region's capacity, not its bytes")
        let r3 = try spool.store([UInt8](repeating: 4, count: 1600), reusing: r2)
        #expect(r3.offset == 1515 && r3.capacity == 2400, "grown: a new region at the end")
        #expect(try spool.load(other) == [UInt8](repeating: 3, count: 10), "the regions do not overlap")
        #expect(try spool.load(r3) == [UInt8](repeating: 4, count: 1600))
        #expect(try spool.load(other) == [UInt8](repeating: 3, count: 10))
        var beyond = r3
        beyond.offset += 100
        #expect(throws: ToolFailure.self) { try spool.load(beyond) }
        var bytes = ParkedBytes()
        bytes.put([1.5, 2.5])
        var cut = ParkedBytes(Array(bytes.bytes.dropLast(3)))
        #expect(throws: ToolFailure.self) { try cut.take(Double.self) }
        var whole = ParkedBytes(bytes.bytes)
        #expect(try whole.take(Double.self) == [1.5, 2.5] && whole.isAtEnd)
    }

    /// Days one after another, a trace each, every day ending inside a stay (the soak's
    /// shape): the output is what each day gives alone, the open stays last in day order.
    @Test("visits on traces one after another: each trace's visits are those it gives alone")
    func visitsDaysInTurn() throws {
        let alone = VisitsTests.daysInTurn(days: 6, hours: 5, every: 5)
        let lines = alone.flatMap { $0 }
        let (_, found) = try VisitsTests.runVisits(lines)
        var open: [VisitsTests.Found] = []
        for (day, own) in alone.enumerated() {
            let (_, expected) = try VisitsTests.runVisits(own)
            let got = found.filter { $0.trace == "day-\(day)" }
            try #require(got.count == expected.count && !got.isEmpty, "day \(day)")
            for (x, y) in zip(got, expected) {
                #expect(x.lat == y.lat && x.lon == y.lon && x.hacc == y.hacc && x.fixes == y.fixes)
                #expect(x.arrival == y.arrival && x.departure == y.departure)
            }
            #expect(got.last?.departure == nil, "each day ends inside a stay")
            if let last = got.last { open.append(last) }
        }
        // The open stays are written at the end, in the order the traces first appeared.
        let tail = found.suffix(open.count)
        #expect(tail.map(\.trace) == open.map(\.trace))
        #expect(tail.allSatisfy { $0.departure == nil })
    }
}
