/// The writers of the tools' own records; the bytes of each record are made where its type
/// is defined, and the writers add the framing.

/// fencerule's events, one a line: `{"time","event","fence",...}` (`FenceRuleTool.write`).
struct FenceEventLines: RecordWriter {
    let fences: FenceTable

    @inline(__always)
    mutating func write(_ record: (event: FenceEvent, fix: Fix), into out: inout [UInt8]) {
        FenceRuleTool.write(record.event, fix: record.fix, fences: fences, into: &out)
    }
}

/// visits' visits: one record a line, or with `geoJSON` one FeatureCollection of Points,
/// opened before the first visit and closed after the last (also when there is none).
struct VisitWriter: RecordWriter {
    let geoJSON: Bool
    private var first = true

    init(geoJSON: Bool) { self.geoJSON = geoJSON }

    mutating func open(into out: inout [UInt8]) {
        if geoJSON { out.append(contentsOf: #"{"type":"FeatureCollection","features":["#.utf8) }
    }

    mutating func write(_ visit: Visit, into out: inout [UInt8]) {
        if geoJSON {
            if !first { out.append(UInt8(ascii: ",")) }
            out.append(0x0A)
            VisitsTool.writeFeature(visit, into: &out)
        } else {
            VisitsTool.write(visit, into: &out)
        }
        first = false
    }

    mutating func close(into out: inout [UInt8]) {
        if geoJSON { out.append(contentsOf: "\n]}\n".utf8) }
    }
}

/// fixstats' summary records, one a line (`StatsRecord.write`).
struct StatsLines: RecordWriter {
    mutating func write(_ record: (stats: StatsRecord, trace: StatsRecord.TraceMember), into out: inout [UInt8]) {
        record.stats.write(trace: record.trace, into: &out)
    }
}

/// fixplot's picture: the SVG document, or with `html` a page around it.
struct PlotDocument: RecordWriter {
    let html: Bool
    let title: String?

    mutating func write(_ result: PlotRenderer.Result, into out: inout [UInt8]) {
        if html {
            HTMLPage.write(result, title: title, into: &out)
        } else {
            out.append(contentsOf: result.svg)
        }
    }
}
