/// GSA, DOP and active satellites.
///
/// ```
/// $--GSA,a,x,xx,xx,xx,xx,xx,xx,xx,xx,xx,xx,xx,xx,x.x,x.x,x.x[,h]*hh
///        1 2 3                                  14  15  16  17
/// ```
/// 1 mode (M manual, A automatic), 2 fix type (1 none, 2 2D, 3 3D), 3-14 satellite IDs,
/// 15 PDOP, 16 HDOP, 17 VDOP, 18 system ID (NMEA 4.1). Some receivers write a different
/// number of satellite fields: the three DOPs are read as the last three numeric fields before
/// an optional system ID.
enum GSA: NMEASentenceParser {
    static let timeField: Int? = nil

    static func apply(_ s: NMEASentence, to epoch: inout NMEAEpoch) -> NMEAVerdict {
        guard s.count >= 17 else { return .refused(.tooFewFields(needs: 17)) }
        if s.char(2) == UInt8(ascii: "1") { return .void }  // no fix: its DOPs mean nothing
        // VDOP is the last field, or the one before NMEA 4.1's system ID (field 18).
        let vdop = s.count >= 18 ? s.count - 1 : s.count
        let pdop: Double?, hdop: Double?, vdopValue: Double?
        do throws(NMEARefusal) {
            pdop = try s.optionalNumber(vdop - 2)
            hdop = try s.optionalNumber(vdop - 1)
            vdopValue = try s.optionalNumber(vdop)
        } catch { return .refused(error) }
        epoch.set(\.pdop, pdop)
        epoch.set(\.hdop, hdop)
        epoch.set(\.vdop, vdopValue)
        return .used
    }
}
