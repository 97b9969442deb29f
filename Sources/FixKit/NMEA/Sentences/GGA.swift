/// GGA, global positioning system fix data: time, position, quality, satellites, HDOP, altitude.
///
/// ```
/// $--GGA,hhmmss.ss,ddmm.mm,a,dddmm.mm,a,x,xx,x.x,x.x,M,x.x,M,x.x,xxxx*hh
///        1         2       3 4        5 6 7  8   9   10 11 12 13  14
/// ```
/// 1 UTC time, 2-3 latitude N/S, 4-5 longitude E/W, 6 quality (0 invalid, 1 GPS, 2 DGPS,
/// 4 RTK fixed, 5 RTK float, 6 estimated...), 7 satellites used, 8 HDOP, 9-10 altitude above
/// mean sea level in metres, 11-12 geoid separation, 13 age of differential data, 14 station.
/// The largest satellite count a GGA or GNS may carry (its field is `xx`; receivers that
/// track several constellations write up to three digits).
let maxSatellites = 999.0

enum GGA: NMEASentenceParser {
    static let timeField: Int? = 0

    static func apply(_ s: NMEASentence, to epoch: inout NMEAEpoch) -> Bool {
        guard s.count >= 9, s.numbersValid(6, 7, 8) else { return false }
        guard let quality = s.char(5), quality != UInt8(ascii: "0") else {
            epoch.sawVoid = true
            return true
        }
        return applyFixData(s, altitude: s.char(9) == nil || s.char(9) == UInt8(ascii: "M"), to: &epoch)
    }

    /// The fields GGA and GNS share: position (2-5), satellites (7), HDOP (8) and altitude
    /// (9). The position is read only when no earlier sentence of the epoch gave one.
    static func applyFixData(_ s: NMEASentence, altitude: Bool, to epoch: inout NMEAEpoch) -> Bool {
        // A count no receiver can have (more than every satellite ever launched) makes the
        // sentence malformed, checked before anything is taken from it: `Int(n)` would trap
        // past Int.max.
        if let n = s.number(6), n > maxSatellites { return false }
        if epoch.lat == nil {
            let lat = s.coordinate(1, limit: 90)
            let lon = s.coordinate(3, limit: 180)
            guard lat != nil, lon != nil else { return false }
            epoch.setPosition(lat, lon)
        }
        if let n = s.number(6), n >= 0, n == n.rounded() { epoch.set(\.sat, Int(n)) }
        epoch.set(\.hdop, s.number(7))
        if altitude { epoch.set(\.alt, s.number(8)) }
        return true
    }
}
