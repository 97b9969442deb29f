#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Thins a polyline in screen space, streaming, in constant memory, so that a million fixes
/// draw as the few thousand vertices a picture of this size can show.
///
/// Each point is first rounded to a grid of `PathGrid.unit` (a tenth of a pixel), the
/// resolution the path is written at. Then a run of points is replaced by the segment from
/// its first point (the anchor) to its last when every point of the run lies within
/// `tolerance` grid units of that segment: a sleeve fit (Zhao and Saalfeld, "Linear-time
/// sleeve-fitting polyline simplification algorithms", AutoCarto 1997). For every point of the
/// run, the directions from the anchor that pass within `tolerance` of it form a wedge; the
/// run goes on while each new point's direction lies in the wedges of all the points before
/// it (so the segment to it passes them all), and while the run moves away from
/// the anchor (a point no farther than the farthest one so far ends it, so the segment is long
/// enough to reach every point's foot). Points within `tolerance` of the anchor add no wedge.
/// Duplicates (the same grid point) are dropped.
///
/// So no point moves by more than `tolerance` plus the rounding (half a unit on each axis):
/// with the tool's 5 units, 0.5 px + 0.07 px. The vertices kept are input points (rounded),
/// so a vertex's details (time, accuracy) are those of a real fix.
/// - Complexity: O(1) time and memory per point.
public struct ScreenSimplifier<Payload> {
    public typealias Vertex = (x: Int, y: Int, payload: Payload)
    public let tolerance: Double
    /// The last vertex written, where the current run starts.
    var anchor: (x: Int, y: Int)?
    /// The run's last point: written when the run ends.
    var last: (x: Int, y: Int) = (0, 0)
    var lastPayload: Payload?
    var haveLast = false
    /// The wedge of directions (radians, unwrapped about `wedgeCentre`) every point allows.
    var low = -Double.infinity
    var high = Double.infinity
    var wedgeCentre = 0.0
    var hasWedge = false
    var farthest = 0.0

    public init(tolerance: Double) {
        self.tolerance = tolerance
    }

    /// Adds a point in grid units, with its payload (the caller's details of the fix). Returns
    /// the vertex that must be drawn now, if any: at most one per point.
    @inline(__always)
    public mutating func add(x: Int, y: Int, payload: Payload) -> Vertex? {
        guard let a = anchor else {
            anchor = (x, y)
            return (x, y, payload)
        }
        if haveLast, last.x == x, last.y == y { return nil }
        if !haveLast, a.x == x, a.y == y { return nil }
        let dx = Double(x - a.x)
        let dy = Double(y - a.y)
        let r = (dx * dx + dy * dy).squareRoot()
        if fits(dx: dx, dy: dy, r: r) {
            last = (x, y)
            lastPayload = payload
            haveLast = true
            return nil
        }
        // The run ends at its last point, which becomes the anchor of the next run.
        var out: Vertex?
        if haveLast, let p = lastPayload {
            out = (last.x, last.y, p)
            anchor = last
        }
        resetWedge()
        let b = anchor ?? a
        let ndx = Double(x - b.x)
        let ndy = Double(y - b.y)
        _ = fits(dx: ndx, dy: ndy, r: (ndx * ndx + ndy * ndy).squareRoot())
        last = (x, y)
        lastPayload = payload
        haveLast = true
        return out
    }

    /// Narrows the wedge by the point's own wedge; false (wedge unchanged) when nothing is left
    /// or the point is not farther than the farthest so far. A point within `tolerance` of the
    /// anchor fits before any wedge exists (a segment from the anchor passes within tolerance
    /// of it), and ends the run after (it could not be the run's end).
    @inline(__always)
    mutating func fits(dx: Double, dy: Double, r: Double) -> Bool {
        guard r > tolerance else { return hasWedge ? r >= farthest : true }
        let theta = atan2(dy, dx)
        let half = asin(tolerance / r)
        if !hasWedge {
            wedgeCentre = theta
            low = theta - half
            high = theta + half
            hasWedge = true
            farthest = r
            return true
        }
        guard r >= farthest else { return false }
        // The point's direction taken within pi of the wedge, so that angles do not wrap.
        var t = theta
        while t - wedgeCentre > Double.pi { t -= 2 * Double.pi }
        while t - wedgeCentre < -Double.pi { t += 2 * Double.pi }
        // The segment to this point must pass within tolerance of every point before it: its
        // direction lies in their wedge. Then its own wedge narrows what may follow.
        guard t >= low, t <= high else { return false }
        low = max(low, t - half)
        high = min(high, t + half)
        farthest = r
        return true
    }

    mutating func resetWedge() {
        hasWedge = false
        low = -Double.infinity
        high = Double.infinity
        farthest = 0
    }

    /// Ends the line: the pending last point, if any, is its last vertex.
    public mutating func finish() -> Vertex? {
        var out: Vertex?
        if haveLast, let p = lastPayload { out = (last.x, last.y, p) }
        anchor = nil
        haveLast = false
        lastPayload = nil
        resetWedge()
        return out
    }
}

/// The grid paths are written on: integers of a tenth of a pixel.
public enum PathGrid {
    public static let unitsPerPixel = 10.0

    @inline(__always)
    public static func units(_ pixels: Double) -> Int {
        let v = (pixels * unitsPerPixel).rounded()
        // Far-off coordinates (a fence 1000 km away) are clamped, not trapped on conversion.
        return Int(min(max(v, -1e12), 1e12))
    }

    /// The whole pixel that holds a point in grid units (clamped to 32 bits).
    @inline(__always)
    static func pixel(_ units: Int) -> Int32 {
        let p = units >= 0 ? units / 10 : (units - 9) / 10
        return Int32(clamping: p)
    }

    /// Appends grid units as pixels: `123.4`, `-0.5` written `-.5`, `12` for `12.0`.
    @inline(__always)
    public static func write(_ units: Int, into out: inout [UInt8]) {
        let m = units.magnitude
        if units < 0 { out.append(UInt8(ascii: "-")) }
        let whole = m / 10
        let tenth = m % 10
        if whole > 0 || tenth == 0 { writeInteger(Int(whole), into: &out) }
        if tenth != 0 {
            out.append(UInt8(ascii: "."))
            out.append(UInt8(48 + tenth))
        }
    }

    /// Appends a pixel value rounded to the grid.
    @inline(__always)
    public static func write(pixels: Double, into out: inout [UInt8]) {
        write(units(pixels), into: &out)
    }
}
