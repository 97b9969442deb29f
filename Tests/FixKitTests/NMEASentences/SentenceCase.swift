import Foundation
import Testing

@testable import FixKit

/// One row of a sentence's table: a sentence as a receiver writes it, and what its parser
/// must make of it, field by field. Members left nil must stay absent from the epoch.
struct SentenceCase: CustomTestStringConvertible, Sendable {
    var sentence: String
    var verdict: NMEAVerdict
    var timeOfDay: Int64? = nil
    var day: Int64? = nil
    var lat: Double? = nil
    var lon: Double? = nil
    var decimals: Int? = nil
    var alt: Double? = nil
    var speed: Double? = nil
    var course: Double? = nil
    var hdop: Double? = nil
    var vdop: Double? = nil
    var pdop: Double? = nil
    var sat: Int? = nil
    var sigmaLat: Double? = nil
    var sigmaLon: Double? = nil
    var sigmaAlt: Double? = nil
    var void = false

    var testDescription: String { sentence }

    /// The sentence with its checksum: `*hh` is added when the text has none, so that made-up
    /// variants of a published sentence go through the same framing as real ones.
    var framed: String {
        if sentence.contains("*") { return sentence }
        let sum = sentence.utf8.dropFirst().reduce(UInt8(0), ^)
        return sentence + "*" + String(format: "%02X", sum)
    }

    /// Frames the sentence as the reader does and applies `P` to an empty epoch.
    func run<P: NMEASentenceParser>(_ parser: P.Type) -> (verdict: NMEAVerdict?, time: Int64?, epoch: NMEAEpoch) {
        let bounds = FieldBounds()
        let bytes = Array(framed.utf8)
        return bytes.withUnsafeBufferPointer { buffer in
            let (outcome, _) = NMEAFraming.frame(buffer, bounds: bounds)
            guard case .sentence(let s) = outcome else { return (nil, nil, NMEAEpoch()) }
            var epoch = NMEAEpoch()
            let time = P.timeField.flatMap { s.isEmpty($0) ? nil : s.timeOfDay($0) }
            return (P.apply(s, to: &epoch), time, epoch)
        }
    }

    /// Checks everything the parser gave against this row.
    func check<P: NMEASentenceParser>(_ parser: P.Type) {
        let (verdict, time, e) = run(parser)
        #expect(verdict == self.verdict, "verdict")
        if let timeOfDay { #expect(time == timeOfDay, "time of day") }
        // A refused sentence gives nothing, whatever it holds.
        if case .refused = self.verdict { #expect(Self.same(e, NMEAEpoch()), "a refused sentence changed the epoch") }
        #expect(e.day == day, "day")
        #expect(Self.close(e.lat, lat, 1e-12), "lat \(String(describing: e.lat))")
        #expect(Self.close(e.lon, lon, 1e-12), "lon \(String(describing: e.lon))")
        if let decimals { #expect(e.positionDecimals == decimals, "decimals") }
        #expect(Self.close(e.alt, alt), "alt")
        #expect(Self.close(e.speed, speed), "speed \(String(describing: e.speed))")
        #expect(Self.close(e.course, course), "course")
        #expect(Self.close(e.hdop, hdop), "hdop")
        #expect(Self.close(e.vdop, vdop), "vdop")
        #expect(Self.close(e.pdop, pdop), "pdop")
        #expect(e.sat == sat, "sat")
        #expect(Self.close(e.sigmaLat, sigmaLat), "sigmaLat")
        #expect(Self.close(e.sigmaLon, sigmaLon), "sigmaLon")
        #expect(Self.close(e.sigmaAlt, sigmaAlt), "sigmaAlt")
        #expect(e.sawVoid == void, "sawVoid")
    }

    static func close(_ a: Double?, _ b: Double?, _ tolerance: Double = 1e-12) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (let x?, let y?): return abs(x - y) <= tolerance * max(1, abs(y))
        default: return false
        }
    }

    /// Hours, minutes, seconds and milliseconds as milliseconds since midnight.
    static func ms(_ h: Int64, _ m: Int64, _ s: Int64, _ milli: Int64 = 0) -> Int64 {
        ((h * 60 + m) * 60 + s) * 1000 + milli
    }

    /// Days since 1970-01-01, by the civil calendar.
    static func day(_ y: Int64, _ m: Int64, _ d: Int64) -> Int64 { Timestamp.daysFromCivil(y, m, d) }

    /// One knot in m/s (1852 m an hour).
    static let knot = 1852.0 / 3600.0

    /// Whether two epochs hold the same members.
    static func same(_ a: NMEAEpoch, _ b: NMEAEpoch) -> Bool {
        a.timeOfDay == b.timeOfDay && a.day == b.day && a.lat == b.lat && a.lon == b.lon
            && a.positionDecimals == b.positionDecimals && a.sawVoid == b.sawVoid && a.alt == b.alt
            && a.speed == b.speed && a.course == b.course && a.hdop == b.hdop && a.vdop == b.vdop
            && a.pdop == b.pdop && a.sat == b.sat && a.sigmaLat == b.sigmaLat && a.sigmaLon == b.sigmaLon
            && a.sigmaAlt == b.sigmaAlt
    }
}
