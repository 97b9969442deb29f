import Foundation
import Testing

@testable import FixKit

/// SPEC: two fixes of one trace never share a time. In NMEA a time repeats when the log's
/// time goes back (gpsd's `humminbird-M37.log` jumps from 19:41:24 back to 19:41:11) or when
/// a sentence comes more than one epoch late (GPSBabel's `nmea+ms.txt`); the first fix of a
/// time is kept, the later epochs are skipped and counted in a note.
@Suite("NMEA: two fixes of one trace never share a time")
struct NMEADistinctTimesTests {
    /// The `time` of every fix of `ndjson` that has one, by trace.
    static func timesByTrace(_ ndjson: Data) throws -> [String: [String]] {
        var times: [String: [String]] = [:]
        for fix in try Tools.objects(ndjson) {
            guard let time = fix["time"] as? String else { continue }
            times[fix["trace"] as? String ?? "", default: []].append(time)
        }
        return times
    }

    /// The times that occur more than once in `times`.
    static func repeated(_ times: [String]) -> [String] {
        var seen = Set<String>(), twice: [String] = []
        for t in times where !seen.insert(t).inserted { twice.append(t) }
        return twice
    }

    @Test("a log whose time goes back: the epochs at times already written are skipped and counted")
    func timeGoesBack() throws {
        // 12:00:00 to 12:00:03, then the clock goes back to 12:00:01 (new positions, as in
        // humminbird-M37.log) and on to 12:00:05.
        let (fixes, stderr) = try NMEAEpochRulesTests.gpx2fix([
            "$GPRMC,120000,A,4426.1130,N,07140.5596,W,5.2,77.3,160906,,",
            "$GPRMC,120001,A,4426.1134,N,07140.5558,W,5.2,77.3,160906,,",
            "$GPGGA,120002,4426.1138,N,07140.5536,W,2,10,0.9,267.9,M,,,,",
            "$GPRMC,120003,A,4426.1142,N,07140.5515,W,5.2,77.3,160906,,",
            "$GPRMC,120001,A,4426.1203,N,07140.5121,W,5.2,81.5,160906,,",
            "$GPVTG,81.4,T,97.2,M,5.2,N,9.6,K",
            "$GPGLL,4426.1203,N,07140.5100,W,120002,A",
            "$GPRMC,120004,A,4426.1207,N,07140.5084,W,5.2,81.9,160906,,",
            "$GPRMC,120005,A,4426.1211,N,07140.5062,W,5.2,81.9,160906,,",
        ])
        let times = fixes.compactMap { $0["time"] as? String }
        #expect(
            times == [
                "2006-09-16T12:00:00Z", "2006-09-16T12:00:01Z", "2006-09-16T12:00:02Z", "2006-09-16T12:00:03Z",
                "2006-09-16T12:00:04Z", "2006-09-16T12:00:05Z",
            ])
        // The first fix of 12:00:01 is kept, with its own position.
        #expect(abs((fixes[1]["lat"] as? Double ?? 0) - (44 + 26.1134 / 60)) < 1e-12)
        #expect(
            stderr.contains(
                ": 2 epochs skipped: a fix of their time was already written (the log's time goes back); the first fix of a time is kept"
            ), "\(stderr)")
    }

    @Test("a sentence more than one epoch late does not make a second fix of its time")
    func sentenceTwoEpochsLate() throws {
        let (fixes, stderr) = try NMEAEpochRulesTests.gpx2fix(
            [
                "$GPGGA,120000,5333.4037,N,00951.9347,E,1,06,1.7,48.4,M,46.0,M,,",
                "$GPGGA,120001,5333.4037,N,00951.9347,E,1,06,1.7,48.4,M,46.0,M,,",
                "$GPGGA,120002,5333.4037,N,00951.9347,E,1,06,1.7,48.4,M,46.0,M,,",
                "$GPGLL,5333.4038,N,00951.9348,E,120000,A,A",
            ], ["--date", "2007-08-17"])
        #expect(fixes.compactMap { $0["time"] as? String }.count == 3)
        #expect(Self.repeated(fixes.compactMap { $0["time"] as? String }).isEmpty)
        #expect(stderr.contains(": 1 epoch skipped: a fix of its time was already written"), "\(stderr)")
    }

    @Test("the same times on two days are not repeats; a log without a date (no time) is left as it is")
    func daysAndUndated() throws {
        let (fixes, stderr) = try NMEAEpochRulesTests.gpx2fix([
            "$GPRMC,235959,A,4426.1130,N,07140.5596,W,5.2,77.3,160906,,",
            "$GPRMC,120000,A,4426.1130,N,07140.5596,W,5.2,77.3,170906,,",
            "$GPRMC,180000,A,4426.1130,N,07140.5596,W,5.2,77.3,170906,,",
            "$GPRMC,235959,A,4426.1130,N,07140.5596,W,5.2,77.3,170906,,",
        ])
        // (Two epochs apart: one epoch later it would join the first, a sentence one epoch late.)
        #expect(fixes.compactMap { $0["time"] as? String }.last == "2006-09-17T23:59:59Z")
        #expect(fixes.count == 4)
        #expect(!stderr.contains("skipped"), "\(stderr)")
        // Without a date the fixes have no time: an epoch two late (a new one) is written.
        let gga = (0...2).map { "$GPGGA,12000\($0),5333.4037,N,00951.9347,E,1,06,1.7,48.4,M,46.0,M,," }
        let (undated, _) = try NMEAEpochRulesTests.gpx2fix(gga + [gga[0]])
        #expect(undated.count == 4, "fixes without a time share none")
    }

    /// `WrittenTimes` against a set of every time, over random walks of times that mostly
    /// increase and now and then go back: a time is new exactly when it was never recorded,
    /// except that one going back past the window may be refused (never one in the window).
    @Test("WrittenTimes says new, repeated or too far back as a set of every time would", arguments: 0..<4)
    func writtenTimesAgainstASet(seed: UInt64) {
        var rng = SplitMix(seed: seed &+ 0x5EED)  // VisitsSlowMovementTests' generator
        var times = WrittenTimes()
        var all = Set<Int64>()
        var order: [Int64] = []  // the times recorded, in order
        var t: Int64 = 1_000_000
        var refused = 0
        var repeats = 0
        for step in 0..<20_000 {
            if step == 10_000 {
                t -= 30_000  // back past the window (4096 fixes, about 20 s here): refused
            } else if rng.next() % 20 == 0 {
                t -= Int64(rng.next() % 40)  // back a little: mostly repeats
            } else {
                t += Int64(1 + rng.next() % 9)
            }
            let verdict = times.insert(t)
            let window = order.suffix(WrittenTimes.capacity)  // searched only when t is refused
            switch verdict {
            case .new:
                #expect(!all.contains(t), "\(t) was recorded before")
                all.insert(t)
                order.append(t)
            case .repeated:
                #expect(window.contains(t), "\(t) is not among the last \(WrittenTimes.capacity) recorded")
                repeats += 1
            case .tooFarBack:
                #expect(!window.contains(t), "\(t) is in the window: it is a repeat")
                let evicted = order.dropLast(WrittenTimes.capacity)
                #expect(evicted.contains { $0 >= t }, "\(t) goes back past nothing that left the window")
                refused += 1
            }
        }
        #expect(
            order.count > 6000 && repeats > 0 && refused > 0,
            "the walk did not exercise the window: \(order.count) new, \(repeats) repeated, \(refused) refused")
    }

    /// A log followed by itself (`cat a.nmea a.nmea`, or two logs in the wrong order): the
    /// second half's times all go back. Those still in the window are repeats, the rest too
    /// far back, exactly as the window says; and none of the second half is new.
    @Test("WrittenTimes on a log followed by itself")
    func writtenTimesOnALogTwice() {
        var rng = SplitMix(seed: 0xCA7)
        var log: [Int64] = []
        var t: Int64 = 5_000_000
        for _ in 0..<12_000 {
            t += Int64(1 + rng.next() % 1500)
            log.append(t)
        }
        var times = WrittenTimes()
        for t in log { #expect(times.insert(t) == .new) }
        let window = Set(log.suffix(WrittenTimes.capacity))
        var repeats = 0
        var refused = 0
        for t in log {
            switch times.insert(t) {
            case .new: Issue.record("\(t) was recorded in the first half")
            case .repeated:
                #expect(window.contains(t), "\(t) is not in the window")
                repeats += 1
            case .tooFarBack:
                #expect(!window.contains(t), "\(t) is in the window: it is a repeat")
                refused += 1
            }
        }
        #expect(repeats == WrittenTimes.capacity)
        #expect(refused == log.count - WrittenTimes.capacity)
    }

    @Test(
        "every corpus NMEA log: no two fixes of a trace share a time, as is and with --date",
        .enabled(if: Tools.corpus != nil, Comment(rawValue: Tools.corpusMissing)),
        arguments: CorpusNMEATests.files)
    func corpus(file: String) throws {
        let path = try #require(CorpusNMEATests.directory).appendingPathComponent(file).path
        for options in [[], ["--date", "2001-09-09"]] {
            let result = try Tools.run("gpx2fix", options + [path])
            for (trace, times) in try Self.timesByTrace(result.stdout) {
                let twice = Self.repeated(times)
                #expect(
                    twice.isEmpty,
                    "\(file) \(options): trace \(trace) has \(twice.count) repeated times: \(twice.prefix(5))")
            }
        }
    }

    @Test(
        "humminbird-M37.log and nmea+ms.txt: the skipped epochs are counted",
        .enabled(if: Tools.corpus != nil, Comment(rawValue: Tools.corpusMissing)))
    func corpusCounts() throws {
        let (hb, hbErr) = try NMEAEpochRulesTests.corpus("gpsd__test__daemon__humminbird-M37.log")
        #expect(hb.count == 24)
        #expect(hbErr.contains(": 9 epochs skipped: a fix of their time was already written"), "\(hbErr)")
        let (ms, msErr) = try NMEAEpochRulesTests.corpus("gpsbabel__reference__track__nmea+ms.txt")
        #expect(ms.count == 32)
        #expect(msErr.contains(": 4 epochs skipped: a fix of their time was already written"), "\(msErr)")
    }
}
