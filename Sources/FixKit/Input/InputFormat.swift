/// One input format that gpx2fix reads: the seam every reader plugs into.
///
/// A format recognises itself from the first bytes of an input (`recognize`), and reads the
/// whole input into a `FixSink`, reporting problems with their location through the sink. A
/// new format is one file with a type conforming to this protocol, plus its entry in
/// `InputFormats.all`.
///
/// Readers stream: they hold a bounded amount of the input at a time, whatever its size.
/// Their output must not depend on how the input is split into reads (a pipe or a live feed
/// delivers it in arbitrary pieces).
///
/// The output side has its own seam: `RecordWriter` (Output/RecordWriter.swift).
public protocol InputFormat {
    /// The name `--format` takes, in lower case: `gpx`, `nmea`, `fit`, ...
    static var name: String { get }
    /// One line for `--format help`: what the format is and who writes it.
    static var summary: String { get }

    /// Whether `head` (the input's first bytes) is this format. It must be decided by the
    /// bytes alone: an answer given for a prefix must hold for every longer one, so that the
    /// decision does not depend on how the input was read. Answer `.needMore` while the bytes
    /// so far cannot tell; at the end of the input (`head.isComplete`) or at
    /// `InputHead.limit` bytes, `.needMore` counts as `.no`.
    static func recognize(_ head: InputHead) -> Recognition

    init(settings: ReaderSettings)

    /// Reads the whole input (its head included: `source` replays it first) into `sink`.
    /// Problems in the data go to `sink.problem`, which throws under `--strict`; an input that
    /// cannot be read throws `InputError`. Notes that follow the fixes (a summary of expected
    /// noise) go to `sink.note` after the last fix.
    mutating func read(_ source: InputSource, into sink: FixSink) throws
}

/// A format's answer to the first bytes of an input.
public enum Recognition: Sendable, Equatable {
    case yes
    case no
    /// The bytes so far cannot tell.
    case needMore
}

/// What every reader is told about the input and the run.
public struct ReaderSettings: Sendable {
    /// The input's file name (last path component), without a `.gz` that was decompressed;
    /// nil for standard input. Readers use it as the `trace` when the data names none.
    public var fileName: String?
    /// `--uere M`: hacc = HDOP x M where a source has HDOP but no better accuracy.
    public var uere: Double?
    /// `--date`: days since 1970-01-01, for NMEA logs without a date.
    public var date: Int64?

    public init(fileName: String? = nil, uere: Double? = nil, date: Int64? = nil) {
        self.fileName = fileName
        self.uere = uere
        self.date = date
    }
}

/// The first bytes of an input, for recognising its format: after a UTF-8 byte order mark and
/// leading white space (space, tab, CR, LF), at most `InputHead.limit` bytes.
public struct InputHead {
    /// How many bytes formats may look at before they must decide.
    public static let limit = 1 << 16

    /// The bytes, from the first one that is not white space (a UTF-16 input keeps its BOM).
    public let bytes: [UInt8]
    /// Whether the input ends within `bytes` (or `bytes` has reached `limit`): no more will come.
    public let isComplete: Bool

    public init(bytes: [UInt8], isComplete: Bool) {
        self.bytes = bytes
        self.isComplete = isComplete
    }

    /// `.needMore` while more bytes may come, else `.no`: for a recognizer that cannot tell yet.
    public var undecided: Recognition { isComplete ? .no : .needMore }

    /// The first line (up to LF or CR, not included), or nil while it has not ended and more
    /// bytes may come. At the end of the head the rest counts as the line.
    public var firstLine: ArraySlice<UInt8>? {
        if let end = bytes.firstIndex(where: { $0 == 0x0A || $0 == 0x0D }) { return bytes[..<end] }
        return isComplete ? bytes[...] : nil
    }

    /// Whether the bytes start with `prefix`.
    public func starts(with prefix: String) -> Bool {
        bytes.starts(with: prefix.utf8)
    }
}

/// How a reader classes a point, for gpx2fix's waypoint rule: waypoints are written only when
/// the input has no track or route points, or with `--waypoints`.
public enum PointKind: Sendable {
    case track, route, waypoint
}
