/// GGA, global positioning system fix data: time, position, quality, satellites, HDOP, altitude.
///
/// ```
/// $--GGA,hhmmss.ss,ddmm.mm,a,dddmm.mm,a,x,xx,x.x,x.x,M,x.x,M,x.x,xxxx*hh
///        1         2       3 4        5 6 7  8   9   10 11 12 13  14
/// ```
/// 1 UTC time, 2-3 latitude N/S, 4-5 longitude E/W, 6 quality (0 invalid, 1 GPS, 2 DGPS,
/// 4 RTK fixed, 5 RTK float, 6 estimated, 7 manual input, 8 simulator), 7 satellites used,
/// 8 HDOP, 9-10 altitude above mean sea level in metres, 11-12 geoid separation, 13 age of
/// differential data, 14 station. Quality 7 and 8 are not measurements: nothing is taken from
/// them, and the reader counts them.
/// The largest satellite count a GGA or GNS may carry (its field is `xx`; receivers that
/// track several constellations write up to three digits).
let maxSatellites = 999.0

enum GGA: NMEASentenceParser {
    static let timeField: Int? = 1

    static func apply(_ s: NMEASentence, to epoch: inout NMEAEpoch) -> NMEAVerdict {
        guard s.count >= 9 else { return .refused(.tooFewFields(needs: 9)) }
        let numbers: GGA.Numbers
        do throws(NMEARefusal) { numbers = try GGA.Numbers(s) } catch { return .refused(error) }
        guard let quality = s.char(6), quality != UInt8(ascii: "0") else {
            epoch.sawVoid = true
            return .void
        }
        if quality == UInt8(ascii: "7") || quality == UInt8(ascii: "8") {
            epoch.sawVoid = true
            return .notMeasured
        }
        return applyFixData(s, numbers, altitude: s.char(10) == nil || s.char(10) == UInt8(ascii: "M"), to: &epoch)
    }

    /// Fields 7 (satellites), 8 (HDOP) and 9 (altitude) of GGA and GNS, each read once: empty
    /// is nil, and one that is present but not a number makes the sentence malformed.
    struct Numbers {
        var satellites: Double?
        var hdop: Double?
        var altitude: Double?

        @inline(__always)
        init(_ s: NMEASentence) throws(NMEARefusal) {
            satellites = try s.optionalNumber(7)
            hdop = try s.optionalNumber(8)
            altitude = try s.optionalNumber(9)
        }
    }

    /// The fields GGA and GNS share: position (2-5), satellites (7), HDOP (8) and altitude
    /// (9). The position is read only when it is more precise than the one the epoch has.
    static func applyFixData(
        _ s: NMEASentence, _ numbers: Numbers, altitude: Bool, to epoch: inout NMEAEpoch
    ) -> NMEAVerdict {
        // A count no receiver can have (more than every satellite ever launched) makes the
        // sentence malformed, checked before anything is taken from it: `Int(n)` would trap
        // past Int.max.
        if let n = numbers.satellites, n > maxSatellites { return .refused(.satellites(field: 7)) }
        // Counting the decimals is cheaper than reading a position only to throw it away.
        if epoch.lat == nil || epoch.wantsPosition(decimals: s.decimals(2) + s.decimals(4)) {
            var decimals = 0
            guard let lat = s.coordinate(2, limit: 90, decimals: &decimals) else {
                return .refused(.coordinate(field: 2))
            }
            guard let lon = s.coordinate(4, limit: 180, decimals: &decimals) else {
                return .refused(.coordinate(field: 4))
            }
            epoch.offerPosition(lat, lon, decimals: decimals)
        }
        if let n = numbers.satellites, n >= 0, n == n.rounded() { epoch.set(\.sat, Int(n)) }
        epoch.set(\.hdop, numbers.hdop)
        if altitude { epoch.set(\.alt, numbers.altitude) }
        return .used
    }
}
