/// ZDA, time and date.
///
/// ```
/// $--ZDA,hhmmss.ss,xx,xx,xxxx,xx,xx*hh
///        1         2  3  4    5  6
/// ```
/// 1 UTC time, 2 day, 3 month, 4 four-digit year, 5-6 local zone hours and minutes (ignored:
/// the date is UTC's).
enum ZDA: NMEASentenceParser {
    static let timeField: Int? = 1

    static func apply(_ s: NMEASentence, to epoch: inout NMEAEpoch) -> NMEAVerdict {
        guard s.count >= 4 else { return .refused(.tooFewFields(needs: 4)) }
        let dayField: Double?, monthField: Double?, yearField: Double?
        do throws(NMEARefusal) {
            dayField = try s.optionalNumber(2)
            monthField = try s.optionalNumber(3)
            yearField = try s.optionalNumber(4)
        } catch { return .refused(error) }
        guard let d = dayField, let m = monthField, let y = yearField else { return .used }
        // Checked as doubles before converting: a day of 1e20 must be a malformed field, not a
        // trap in Int64(_:).
        guard d == d.rounded(), m == m.rounded(), y == y.rounded(), (1...31).contains(d), (1...12).contains(m),
            (1980...9999).contains(y)
        else { return .refused(.date(field: 2)) }
        let day = Int64(d)
        let month = Int64(m)
        let year = Int64(y)
        guard year >= 1980, year <= 9999, (1...12).contains(month), day >= 1, day <= Timestamp.daysInMonth(year, month)
        else {
            return .refused(.date(field: 2))
        }
        epoch.set(\.day, Timestamp.daysFromCivil(year, month, day))
        return .used
    }
}
