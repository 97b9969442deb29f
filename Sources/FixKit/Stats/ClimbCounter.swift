/// Ascent and descent from a sequence of altitudes, ignoring every reversal smaller than a
/// threshold (SPEC "fixstats": `--climb-threshold`, default 5 m).
///
/// The counted swings run between alternating extrema at least `threshold` apart: a climb
/// is confirmed once the altitude has risen `threshold` above the lowest point before it,
/// and it starts there, so 100, 98, 110 climbs 12 (from 98), not 10. A confirmed swing goes
/// on while the altitude keeps its direction, and ends at its extremum once the altitude has
/// come back `threshold` from it; the last swing counts once it reaches `threshold`, up to
/// its extremum (a smaller wobble after it is not counted).
///
/// On the boundary: a swing of exactly `threshold` counts (`>=`), one just under does not.
/// With a threshold of 0, ascent is the sum of every rise and descent of every fall. The
/// comparisons are on the doubles as given: 0.1-metre steps that add up to 4.999999999 m in
/// binary do not reach 5.
/// - Complexity: O(1) per altitude, constant memory.
public struct ClimbCounter: Sendable, Equatable {
    public let threshold: Double
    private enum Direction: Sendable { case none, up, down }
    private var direction = Direction.none
    /// Before a direction: the lowest and highest altitude so far. After: where the swing
    /// in progress started (`low` holds it) and how far it has got (`high` holds it).
    private var low = 0.0
    private var high = 0.0
    private var started = false
    /// The swings already ended.
    private var confirmedAscent = 0.0
    private var confirmedDescent = 0.0

    public init(threshold: Double) {
        self.threshold = threshold
    }

    public mutating func add(_ x: Double) {
        guard started else {
            started = true
            low = x
            high = x
            return
        }
        switch direction {
        case .none:
            if x < low { low = x }
            if x > high { high = x }
            // Before the first swing, high - low stayed under the threshold, so at most one of
            // these holds.
            if x - low >= threshold, x == high {
                direction = .up  // from low to x
            } else if high - x >= threshold, x == low {
                direction = .down
                swap(&low, &high)  // from high (now `low`, the start) to x (now `high`, the end)
            }
        case .up:
            // low: where the climb started; high: its top so far.
            if x > high {
                high = x
            } else if high - x >= threshold {
                confirmedAscent += high - low
                low = high
                high = x
                direction = .down
            }
        case .down:
            // low: where the fall started (its top); high: its bottom so far.
            if x < high {
                high = x
            } else if x - high >= threshold {
                confirmedDescent += low - high
                low = high
                high = x
                direction = .up
            }
        }
    }

    /// Metres climbed, the swing in progress included.
    public var ascent: Double { direction == .up ? confirmedAscent + (high - low) : confirmedAscent }
    /// Metres descended, the swing in progress included.
    public var descent: Double { direction == .down ? confirmedDescent + (low - high) : confirmedDescent }
    /// Whether any altitude was given.
    public var hasAltitude: Bool { started }
}
