/// How fixplot draws: the options, checked.
public struct PlotOptions: Sendable {
    /// The picture's size in pixels (CSS pixels in the page).
    public var width = 960.0
    public var height = 720.0
    public var title: String?
    public var only: String?
    public var colorByTime = false
    public var drawHacc = false
    public var html = false
    /// fencerule's thresholds, drawn on the P(inside) strip.
    public var enter = 0.9
    public var exit = 0.1
    /// Past this many vertices, a segment already drawn pixel for pixel is left out
    /// (`PlotMetrics.vertexBudget`; tests set it).
    var vertexBudget = PlotMetrics.vertexBudget

    public init() {}
}

/// Sizes of the picture's parts, in pixels.
enum PlotMetrics {
    /// How far a point may move when its trace is thinned, in path-grid units (0.5 px).
    static let tolerance = 5.0
    /// Past this many vertices in a picture (about 2 MB of path), a segment that joins the
    /// same two pixels as one of its trace and colour already drawn is left out (fixplot(1),
    /// "Size and time"): so a picture of endless fixes over the same places stays bounded.
    static let vertexBudget = 250_000
    static let margin = 24.0
    /// Room around the map's contents for the scale bar and the north arrow.
    static let mapMargin = 44.0
    static let titleHeight = 32.0
    static let panelHeader = 26.0
    static let panelAxis = 30.0
    static let stripRow = 64.0
    static let timelineRow = 26.0
    /// At most this many rows in a panel; the rest are counted in its header.
    static let maxStripRows = 8
    static let maxTimelineRows = 14
    static let minimumMapHeight = 240.0
    static let labelFont = 11.0
}

/// The details of a fix kept with each vertex of a thinned trace, for the page's hover.
struct VertexDetails {
    var time: Double
    var hacc: Double
    var speed: Double
}
