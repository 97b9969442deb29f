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

    static func apply(_ s: NMEASentence, to epoch: inout NMEAEpoch) -> NMEAVerdict {
        let lettered = s.count >= 8 && s.char(2) == UInt8(ascii: "T")
        if lettered {
            let course: Double?, knotsField: Double?, kmhField: Double?
            do throws(NMEARefusal) {
                course = try s.optionalNumber(1)
                knotsField = try s.optionalNumber(5)
                kmhField = try s.optionalNumber(7)
            } catch { return .refused(error) }
            if s.char(9) == UInt8(ascii: "N") { return .void }
            if let c = course { epoch.set(\.course, normalizedCourse(c)) }
            if let knots = knotsField, knots >= 0 {
                epoch.set(\.speed, knots * NMEAUnits.knot)
            } else if let kmh = kmhField, kmh >= 0 {
                epoch.set(\.speed, kmh * NMEAUnits.kmh)
            }
            return .used
        }
        guard s.count >= 4 else { return .refused(.tooFewFields(needs: 4)) }
        let course: Double?, knotsField: Double?
        do throws(NMEARefusal) {
            course = try s.optionalNumber(1)
            knotsField = try s.optionalNumber(3)
        } catch { return .refused(error) }
        if let c = course { epoch.set(\.course, normalizedCourse(c)) }
        if let knots = knotsField, knots >= 0 { epoch.set(\.speed, knots * NMEAUnits.knot) }
        return .used
    }
}
