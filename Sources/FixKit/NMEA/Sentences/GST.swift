/// GST, GNSS pseudorange error statistics: the receiver's own estimate of its position error.
///
/// ```
/// $--GST,hhmmss.ss,x.x,x.x,x.x,x.x,x.x,x.x,x.x*hh
///        1         2   3   4   5   6   7   8
/// ```
/// 1 UTC time, 2 RMS of the pseudorange residuals, 3-4 semi-major and semi-minor axes of the
/// error ellipse (1σ, metres), 5 orientation of the semi-major axis, 6 σ latitude, 7 σ
/// longitude, 8 σ altitude (metres). `hacc` = sqrt(σlat² + σlon²), the radius Core Location
/// reports; `vacc` = σ altitude.
enum GST: NMEASentenceParser {
    static let timeField: Int? = 1

    static func apply(_ s: NMEASentence, to epoch: inout NMEAEpoch) -> NMEAVerdict {
        guard s.count >= 8 else { return .refused(.tooFewFields(needs: 8)) }
        let sigmaLat: Double?, sigmaLon: Double?, sigmaAlt: Double?
        do throws(NMEARefusal) {
            sigmaLat = try s.optionalNumber(6)
            sigmaLon = try s.optionalNumber(7)
            sigmaAlt = try s.optionalNumber(8)
        } catch { return .refused(error) }
        if let a = sigmaLat, let b = sigmaLon, a >= 0, b >= 0 {
            epoch.set(\.sigmaLat, a)
            epoch.set(\.sigmaLon, b)
        }
        if let v = sigmaAlt, v >= 0 { epoch.set(\.sigmaAlt, v) }
        return .used
    }
}
