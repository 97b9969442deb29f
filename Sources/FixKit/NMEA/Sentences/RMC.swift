/// RMC, recommended minimum specific GNSS data: time, validity, position, speed, course, date.
///
/// ```
/// $--RMC,hhmmss.ss,A,ddmm.mm,a,dddmm.mm,a,x.x,x.x,ddmmyy,x.x,a[,m[,s]]*hh
///        1         2 3       4 5        6 7   8   9      10  11 12  13
/// ```
/// 1 UTC time, 2 status (A valid, V void), 3-4 latitude N/S, 5-6 longitude E/W, 7 speed over
/// ground in knots, 8 course over ground in degrees true, 9 date, 10-11 magnetic variation,
/// 12 mode (NMEA 2.3: A autonomous, D differential, E estimated, N not valid...), 13 navigation
/// status (NMEA 4.1). Two-digit years are read as receivers mean them: 80-99 are 1980-1999
/// (GPS began in 1980), 00-79 are 2000-2079. A void RMC still gives its date. A date that
/// cannot be read (`2208-1`, as a Telit receiver wrote after the GPS week rollover of April
/// 2019, or a day that does not exist) is left out and the rest is used: the epoch is then
/// dated from the log like any epoch without a date.
enum RMC: NMEASentenceParser {
    static let timeField: Int? = 1

    static func apply(_ s: NMEASentence, to epoch: inout NMEAEpoch) -> NMEAVerdict {
        guard s.count >= 9 else { return .refused(.tooFewFields(needs: 9)) }
        let day = s.isEmpty(9) ? nil : date(s, 9)
        let status = s.char(2)
        guard status == UInt8(ascii: "A"), s.char(12) != UInt8(ascii: "N") else {
            guard status == UInt8(ascii: "V") || status == UInt8(ascii: "A") || status == nil else {
                return .refused(.status(field: 2))
            }
            epoch.set(\.day, day)
            epoch.sawVoid = true
            return .void
        }
        var decimals = 0
        guard let lat = s.coordinate(3, limit: 90, decimals: &decimals) else { return .refused(.coordinate(field: 3)) }
        guard let lon = s.coordinate(5, limit: 180, decimals: &decimals) else { return .refused(.coordinate(field: 5)) }
        let speed: Double?, course: Double?
        do throws(NMEARefusal) {
            speed = try s.optionalNumber(7)
            course = try s.optionalNumber(8)
        } catch { return .refused(error) }
        epoch.set(\.day, day)
        epoch.offerPosition(lat, lon, decimals: decimals)
        if let knots = speed, knots >= 0 { epoch.set(\.speed, knots * NMEAUnits.knot) }
        if let course { epoch.set(\.course, normalizedCourse(course)) }
        return .used
    }

    /// `ddmmyy` in field n as days since 1970-01-01.
    static func date(_ s: NMEASentence, _ n: Int) -> Int64? {
        guard s.field(n).count == 6, let (day, month, yy) = s.digitPairs(s.range(n).lowerBound) else { return nil }
        let year = yy >= 80 ? 1900 + yy : 2000 + yy
        guard (1...12).contains(month), day >= 1, day <= Timestamp.daysInMonth(year, month) else { return nil }
        return Timestamp.daysFromCivil(year, month, day)
    }
}
