/// GNS, GNSS fix data (NMEA 3.0): GGA for several constellations at once.
///
/// ```
/// $--GNS,hhmmss.ss,ddmm.mm,a,dddmm.mm,a,c--c,xx,x.x,x.x,x.x,x.x,xxxx[,a]*hh
///        1         2       3 4        5 6    7  8   9   10  11  12    13
/// ```
/// 1 UTC time, 2-3 latitude N/S, 4-5 longitude E/W, 6 mode, one letter per constellation (N
/// no fix, A autonomous, D differential, ...; all N means no fix), 7 satellites used, 8 HDOP,
/// 9 altitude above mean sea level, 10 geoid separation, 11 age of differential data,
/// 12 station, 13 navigation status (NMEA 4.1).
enum GNS: NMEASentenceParser {
    static let timeField: Int? = 1

    static func apply(_ s: NMEASentence, to epoch: inout NMEAEpoch) -> NMEAVerdict {
        guard s.count >= 8 else { return .refused(.tooFewFields(needs: 8)) }
        let numbers: GGA.Numbers
        do throws(NMEARefusal) { numbers = try GGA.Numbers(s) } catch { return .refused(error) }
        let mode = s.field(6)
        guard !mode.isEmpty, mode.contains(where: { $0 != UInt8(ascii: "N") }) else {
            epoch.sawVoid = true
            return .void
        }
        return GGA.applyFixData(s, numbers, altitude: true, to: &epoch)
    }
}
