/// VTG, course over ground and ground speed.
///
/// ```
/// $--VTG,x.x,T,x.x,M,x.x,N,x.x,K[,a]*hh      NMEA 2.0 and later
///        1   2 3   4 5   6 7   8  9
/// $--VTG,x.x,x.x,x.x,x.x*hh                  NMEA 1.5: no unit letters
///        1   2   3   4
/// ```
/// Course true, course magnetic, speed in knots, speed in km/h; 9 mode (N not valid).
enum VTG: NMEASentenceParser {
    static let timeField: Int? = nil

    static func apply(_ s: NMEASentence, to epoch: inout NMEAEpoch) -> Bool {
        let lettered = s.count >= 8 && s.char(1) == UInt8(ascii: "T")
        if lettered {
            guard s.numbersValid(0, 4, 6) else { return false }
            if s.char(8) == UInt8(ascii: "N") { return true }
            if let c = s.number(0) { epoch.set(\.course, normalizedCourse(c)) }
            if let knots = s.number(4), knots >= 0 {
                epoch.set(\.speed, knots * NMEAUnits.knot)
            } else if let kmh = s.number(6), kmh >= 0 {
                epoch.set(\.speed, kmh * NMEAUnits.kmh)
            }
            return true
        }
        guard s.count >= 4, s.numbersValid(0, 2) else { return false }
        if let c = s.number(0) { epoch.set(\.course, normalizedCourse(c)) }
        if let knots = s.number(2), knots >= 0 { epoch.set(\.speed, knots * NMEAUnits.knot) }
        return true
    }
}
