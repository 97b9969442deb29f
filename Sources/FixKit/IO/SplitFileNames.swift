/// File names for `fix2gpx --split DIR`, one per trace: made from the trace's name so that a
/// user recognises them, safe on every common file system, and unique within the run.
///
/// - Letters and digits of any script, `-`, `_` and `.` are kept; every other character
///   (white space, `/`, `\`, `:`, `*`, `?`, `"`, `<`, `>`, `|`, control characters, emoji)
///   becomes `_`, runs of `_` become one, and `_` and `.` are taken from both ends (no hidden
///   files, no `..`, nothing Windows drops). `Morning Ride (ride.gpx)` → `Morning_Ride_ride.gpx`.
/// - At most 100 bytes of UTF-8 before the extension, cut between characters.
/// - Empty (or nothing left) is `trace`; fixes without a trace are `untraced`; Windows'
///   device names (`CON`, `NUL`, `COM1`, ...) get a `_` after them.
/// - Two traces whose names come out alike, ignoring case (as macOS and Windows compare),
///   are told apart by `-2`, `-3`, ... before the extension.
struct SplitFileNames {
    private var taken: Set<String> = []
    let fileExtension: String

    init(fileExtension: String) {
        self.fileExtension = fileExtension
    }

    static let reserved: Set<String> = Set(
        ["CON", "PRN", "AUX", "NUL"] + (1...9).flatMap { ["COM\($0)", "LPT\($0)"] })

    static func stem(_ trace: String?) -> String {
        guard let trace else { return "untraced" }
        var out = ""
        var lastWasUnderscore = false
        for c in trace {
            let keep = c.isLetter || c.isNumber || c == "-" || c == "_" || c == "."
            if keep && c != "_" {
                out.append(c)
                lastWasUnderscore = false
            } else if !lastWasUnderscore {
                out.append("_")
                lastWasUnderscore = true
            }
        }
        while let f = out.first, f == "_" || f == "." { out.removeFirst() }
        while let l = out.last, l == "_" || l == "." { out.removeLast() }
        while out.utf8.count > 100 { out.removeLast() }
        while let l = out.last, l == "_" || l == "." { out.removeLast() }
        if out.isEmpty { return "trace" }
        if reserved.contains(out.uppercased()) { out += "_" }
        return out
    }

    /// The file name for the next trace.
    mutating func name(for trace: String?) -> String {
        let stem = Self.stem(trace)
        var candidate = stem + "." + fileExtension
        var k = 2
        while !taken.insert(candidate.lowercased()).inserted {
            candidate = "\(stem)-\(k).\(fileExtension)"
            k += 1
        }
        return candidate
    }
}
