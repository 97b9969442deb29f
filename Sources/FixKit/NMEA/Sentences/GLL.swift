/// GLL, geographic position: latitude, longitude, time, validity.
///
/// ```
/// $--GLL,ddmm.mm,a,dddmm.mm,a,hhmmss.ss,A[,a]*hh
///        1       2 3        4 5         6  7
/// ```
/// 1-2 latitude N/S, 3-4 longitude E/W, 5 UTC time (absent before NMEA 2.0), 6 status
/// (A valid, V void), 7 mode (NMEA 2.3; N not valid).
enum GLL: NMEASentenceParser {
    static let timeField: Int? = 4
    static let givesPosition = true

    static func apply(_ s: NMEASentence, to epoch: inout NMEAEpoch) -> Bool {
        guard s.count >= 4 else { return false }
        if let status = s.char(5), status != UInt8(ascii: "A") || s.char(6) == UInt8(ascii: "N") {
            epoch.sawVoid = true
            return true
        }
        let lat = s.coordinate(0, limit: 90)
        let lon = s.coordinate(2, limit: 180)
        guard lat != nil, lon != nil else { return false }
        epoch.setPosition(lat, lon)
        return true
    }
}
