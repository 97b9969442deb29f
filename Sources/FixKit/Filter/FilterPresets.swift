/// Named sets of rule values, so a recorded ride can be replayed as an app configured with Core
/// Location's accuracy levels or activity types would have seen it. Options given explicitly
/// override a preset; several presets apply left to right (`--preset fitness,hundred-meters`).
public struct FilterPreset: Sendable {
    public var name: String
    /// What it models, for `--help` and the man page.
    public var summary: String
    public var maxHacc: Double??
    public var maxSpeed: Double??
    public var minMove: Double??
    public var maxAge: Double??

    public func apply(to rules: inout FilterRules) {
        if let maxHacc { rules.maxHacc = maxHacc }
        if let maxSpeed { rules.maxSpeed = maxSpeed }
        if let minMove { rules.minMove = minMove }
        if let maxAge { rules.maxAge = maxAge }
    }

    /// The presets. Speeds: a sprinting cyclist tops out near 20 m/s, so `fitness` allows 25;
    /// motorway traffic stays under 70 m/s (252 km/h); airliners cruise at about 250 m/s.
    /// Accuracy levels take the radius their `kCLLocationAccuracy…` constant names.
    public static let all: [FilterPreset] = [
        FilterPreset(
            name: "significant-change",
            summary: "startMonitoringSignificantLocationChanges: moves of 500 m, cell-level fixes up to 1000 m",
            maxHacc: 1000, minMove: 500),
        FilterPreset(
            name: "fitness", summary: "CLActivityType.fitness: walking, running, cycling; accuracy under 65 m, speed up to 25 m/s, moves of 5 m",
            maxHacc: 65, maxSpeed: 25, minMove: 5),
        FilterPreset(
            name: "automotive", summary: "CLActivityType.automotiveNavigation: speed up to 70 m/s, moves of 10 m",
            maxHacc: 100, maxSpeed: 70, minMove: 10),
        FilterPreset(
            name: "airborne", summary: "CLActivityType.airborne: speed up to 340 m/s, moves of 50 m",
            maxHacc: 100, maxSpeed: 340, minMove: 50),
        FilterPreset(name: "best", summary: "kCLLocationAccuracyBest with no distance filter: accuracy under 10 m, every move", maxHacc: 10, minMove: .some(nil)),
        FilterPreset(name: "nearest-ten-meters", summary: "kCLLocationAccuracyNearestTenMeters: under 10 m, moves of 10 m", maxHacc: 10, minMove: 10),
        FilterPreset(name: "hundred-meters", summary: "kCLLocationAccuracyHundredMeters: under 100 m, moves of 100 m", maxHacc: 100, minMove: 100),
        FilterPreset(name: "kilometer", summary: "kCLLocationAccuracyKilometer: under 1000 m, moves of 1000 m", maxHacc: 1000, minMove: 1000),
        FilterPreset(
            name: "three-kilometers", summary: "kCLLocationAccuracyThreeKilometers: under 3000 m, moves of 3000 m",
            maxHacc: 3000, minMove: 3000),
    ]

    init(name: String, summary: String, maxHacc: Double?? = nil, maxSpeed: Double?? = nil, minMove: Double?? = nil, maxAge: Double?? = nil) {
        self.name = name
        self.summary = summary
        self.maxHacc = maxHacc
        self.maxSpeed = maxSpeed
        self.minMove = minMove
        self.maxAge = maxAge
    }

    public static func named(_ name: String) -> FilterPreset? {
        all.first { $0.name == name }
    }
}
