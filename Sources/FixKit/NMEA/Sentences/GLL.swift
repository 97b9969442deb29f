/// GLL, geographic position: latitude, longitude, time, validity.
///
/// ```
/// $--GLL,ddmm.mm,a,dddmm.mm,a,hhmmss.ss,A[,a]*hh
///        1       2 3        4 5         6  7
/// ```
/// 1-2 latitude N/S, 3-4 longitude E/W, 5 UTC time (absent before NMEA 2.0), 6 status
/// (A valid, V void), 7 mode (NMEA 2.3; N not valid).
enum GLL: NMEASentenceParser {
    static let timeField: Int? = 5
    static let givesPosition = true

    static func apply(_ s: NMEASentence, to epoch: inout NMEAEpoch) -> NMEAVerdict {
        guard s.count >= 4 else { return .refused(.tooFewFields(needs: 4)) }
        if let status = s.char(6), status != UInt8(ascii: "A") || s.char(7) == UInt8(ascii: "N") {
            epoch.sawVoid = true
            return .void
        }
        var decimals = 0
        guard let lat = s.coordinate(1, limit: 90, decimals: &decimals) else { return .refused(.coordinate(field: 1)) }
        guard let lon = s.coordinate(3, limit: 180, decimals: &decimals) else { return .refused(.coordinate(field: 3)) }
        epoch.offerPosition(lat, lon, decimals: decimals)
        return .used
    }
}
