import Foundation
import Testing

/// gpx2fix on a live feed: gpsfake replays a real NMEA log into a private gpsd on a free loopback
/// port, and `gpspipe -w | gpx2fix` (gpsd's JSON) or `gpspipe -r | gpx2fix` (the NMEA passed
/// through, after gpsd's JSON greeting) read it back while it runs. The fixes must come out while
/// the replay is still going, not in one burst when the input ends, and must be the log's fixes.
///
/// Needs gpsd and its clients (Debian: `apt-get install gpsd gpsd-clients`; gpsfake comes with
/// gpsd-clients and python3-gps). Skipped when they are not installed.
@Suite(
    .serialized,
    .enabled(if: LiveGPSD.installed, Comment(rawValue: LiveGPSD.notInstalled))
)
struct LiveGPSDTests {
    @Test func gpspipeJSONStreamsFixesWhileTheReplayRuns() throws {
        try LiveGPSD.check(mode: "-w")
    }

    @Test func gpspipeRawNMEAStreamsFixesWhileTheReplayRuns() throws {
        try LiveGPSD.check(mode: "-r")
    }
}

enum LiveGPSD {
    static let gpsfake = Tools.which("gpsfake")
    static let gpspipe = Tools.which("gpspipe")
    static let gpsd = Tools.which("gpsd")
        ?? ["/usr/sbin/gpsd", "/usr/local/sbin/gpsd"].map { URL(fileURLWithPath: $0) }
        .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    static let installed = gpsfake != nil && gpspipe != nil && gpsd != nil
    static let notInstalled =
        "gpsfake, gpspipe or gpsd is not installed (Debian: apt-get install gpsd gpsd-clients): live gpsd tests skipped"

    /// u-blox NEO-M9N, 61 one-second epochs of about 23 sentences (Tests/Fixtures/live/README.md).
    static let log = Tools.fixtures.appendingPathComponent("live/gpsd__test__daemon__ublox-neo-m9n-nmea.log")
    /// gpsfake's pause before each sentence: 1,403 sentences make a replay of at least 14 s.
    static let cycle = 0.01
    /// gpsfake -1 with no client of its own ends this long after its last sentence ("Test timed out").
    static let linger = 2.0
    /// The whole run, from starting gpsfake to gpx2fix's end of file; normally about 18 s; a ceiling against hangs.
    static let deadline = 60.0

    struct Line {
        var at: Double
        var text: String
    }

    struct Reference {
        var time: String
        var lat: Double
        var lon: Double
    }

    static func now() -> Double { ProcessInfo.processInfo.systemUptime }

    /// The log's own fixes, as gpx2fix reads the file; the first is checked against its first RMC by hand.
    static func reference() throws -> [Reference] {
        let r = try Tools.run("gpx2fix", [log.path])
        #expect(r.status == 0, "gpx2fix on the log itself: \(r.stderr)")
        let refs = try Tools.objects(r.stdout).map { o -> Reference in
            guard let time = o["time"] as? String, let lat = o["lat"] as? Double, let lon = o["lon"] as? Double else {
                throw TestFailure("reference fix without time, lat or lon: \(o)")
            }
            return Reference(time: time, lat: lat, lon: lon)
        }
        // $GNRMC,223745.00,A,3806.62964,N,12237.61382,W,...,110720 -> 38 + 6.62964/60, -(122 + 37.61382/60)
        guard refs.count == 61, let first = refs.first else { throw TestFailure("expected 61 reference fixes, got \(refs.count)") }
        #expect(first.time == "2020-07-11T22:37:45Z")
        #expect(abs(first.lat - 38.110494) < 1e-6 && abs(first.lon - -122.626897) < 1e-6, "first fix: \(first)")
        return refs
    }

    static func check(mode: String) throws {
        let refs = try reference()
        let sentences = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").filter { $0.hasPrefix("$") }.count
        // gpsfake sleeps `cycle` before every sentence, so the replay cannot end before this.
        let shortestReplay = Double(sentences) * cycle

        let run = try LiveRun(mode: mode)
        defer { run.stopAll() }
        try run.start()
        try run.collect()

        let timings = run.summary(shortestReplay: shortestReplay)
        print("LiveGPSD: \(timings)")  // times from gpsfake's start, for the CI log
        let context = "\(timings); \(run.logs)"
        #expect(!run.timedOut, "the pipeline did not finish within \(deadline) s; \(context)")
        #expect(!run.fixerRunning, "gpx2fix did not exit after gpspipe closed its input; \(context)")
        if !run.gpspipeKilled, !run.fixerRunning {
            #expect(run.fixer.terminationStatus == 0, "gpx2fix exit status; \(context)")
        }

        // Several fixes, all of them the log's.
        #expect(run.lines.count >= 30, "fixes read back; \(context)")
        var times: [String] = []
        for line in run.lines {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.text.utf8)) as? [String: Any],
                let lat = object["lat"] as? Double, let lon = object["lon"] as? Double
            else {
                Issue.record("not a fix: \(line.text)")
                continue
            }
            if let time = object["time"] as? String {
                guard let ref = refs.first(where: { $0.time == time }) else {
                    Issue.record("a fix at \(time), which the log does not have: \(line.text)")
                    continue
                }
                #expect(abs(lat - ref.lat) <= 1e-6 && abs(lon - ref.lon) <= 1e-6, "\(line.text) vs the log's \(ref)")
                times.append(time)
            } else {
                // gpsd can report a position before it knows the date; it must still be one of the log's.
                #expect(mode == "-w", "gpx2fix gave an NMEA fix without a time: \(line.text)")
                #expect(refs.contains { abs(lat - $0.lat) <= 1e-6 && abs(lon - $0.lon) <= 1e-6 }, "\(line.text)")
            }
        }
        // In order, without gaps, from the log's first epochs (gpspipe connects within a second of the
        // replay's start; gpsfake -n has gpsd read the pty from the first sentence).
        let indices = times.compactMap { t in refs.firstIndex { $0.time == t } }
        let distinct = indices.reduce(into: [Int]()) { if $0.last != $1 { $0.append($1) } }
        #expect(distinct.count >= 30, "distinct epochs; \(context)")
        #expect(zip(distinct, distinct.dropFirst()).allSatisfy { $1 == $0 + 1 }, "epochs in order and contiguous: \(distinct)")
        if let first = distinct.first { #expect(first < 15, "the first live fix is the log's epoch \(first); \(context)") }
        if mode == "-r" {
            // One fix an epoch: an epoch is written once, when the next one's time arrives (or at the end).
            #expect(distinct.count == times.count, "one fix an NMEA epoch; \(context)")
        }

        // Live: the first fix came out long before the replay could have ended, and most fixes did too.
        let start = run.fakeStarted
        let earliestEnd = start + shortestReplay
        guard let firstAt = run.lines.first?.at else { return }
        #expect(firstAt < earliestEnd - 4, "first fix after \(firstAt - start) s; \(context)")
        let early = run.lines.filter { $0.at < earliestEnd - 2 }.count
        #expect(early >= 20, "\(early) fixes came out more than 2 s before the replay's earliest end; \(context)")
    }
}

/// One replay: gpsfake (with its gpsd), gpspipe and gpx2fix, each its own process, stopped and reaped
/// by `stopAll` whatever happens. Foundation's Process starts each child as leader of its own process
/// group, so gpsd (gpsfake's child) is stopped with gpsfake by signalling the group.
final class LiveRun {
    let mode: String
    let dir: URL
    var port: UInt16 = 0
    var fake = Process()
    let gpspipe = Process()
    let fixer = Process()
    let output = Pipe()
    var lines: [LiveGPSD.Line] = []
    var fakeStarted = 0.0
    var listening = 0.0
    var fakeEnded: Double?
    var gpspipeEnded: Double?
    var eofAt: Double?
    var gpspipeKilled = false
    var timedOut = false
    var fixerRunning: Bool { fixer.processIdentifier > 0 && fixer.isRunning }

    init(mode: String) throws {
        self.mode = mode
        dir = TestScratch.root.appendingPathComponent("fixkit-live-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    private func file(_ name: String) throws -> FileHandle {
        let url = dir.appendingPathComponent(name)
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        return try FileHandle(forWritingTo: url)
    }

    func log(_ name: String) -> String {
        let text = (try? String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)) ?? ""
        return text.count > 600 ? "…" + text.suffix(600) : text
    }

    /// Starts gpsfake on a free loopback port (a few tries, in case another program takes the port
    /// first), waits until its gpsd accepts connections, then starts `gpspipe MODE | gpx2fix`.
    func start() throws {
        var attempt = 0
        while true {
            attempt += 1
            port = try Self.freeLoopbackPort()
            fake = Process()
            fake.executableURL = LiveGPSD.gpsfake
            // -1 one pass; -n gpsd opens the fake device at once, before the first sentence;
            // -q quiet; -W: exit this long after the last sentence; -c: pause before each sentence.
            // gpsd listens on loopback only (no -G).
            fake.arguments = [
                "-1", "-n", "-q", "-W", String(Int(LiveGPSD.linger)), "-c", String(LiveGPSD.cycle),
                "-P", String(port), LiveGPSD.log.path,
            ]
            var env = ProcessInfo.processInfo.environment
            env["TMPDIR"] = dir.path  // gpsfake's control socket, removed with dir
            if let gpsd = LiveGPSD.gpsd { env["PATH"] = (env["PATH"] ?? "/usr/bin:/bin") + ":" + gpsd.deletingLastPathComponent().path }
            fake.environment = env
            fake.standardInput = FileHandle.nullDevice
            fake.standardOutput = try file("gpsfake.out")
            fake.standardError = try file("gpsfake.err")
            fakeStarted = LiveGPSD.now()
            try Self.spawn(fake)
            let limit = fakeStarted + 20
            while fake.isRunning, LiveGPSD.now() < limit, !Self.accepts(port: port) { usleep(10_000) }
            if fake.isRunning, Self.accepts(port: port) { break }
            let why = "gpsd did not listen on 127.0.0.1:\(port) (try \(attempt)): \(log("gpsfake.err"))"
            stopFake()
            if attempt == 3 { throw TestFailure(why) }
        }
        listening = LiveGPSD.now()

        let link = Pipe()
        fixer.executableURL = Tools.productsDirectory.appendingPathComponent("gpx2fix")
        fixer.standardInput = link
        fixer.standardOutput = output
        fixer.standardError = try file("gpx2fix.err")
        try Self.spawn(fixer)
        gpspipe.executableURL = LiveGPSD.gpspipe
        gpspipe.arguments = [mode, "127.0.0.1:\(port)"]
        gpspipe.standardInput = FileHandle.nullDevice
        gpspipe.standardOutput = link
        gpspipe.standardError = try file("gpspipe.err")
        try Self.spawn(gpspipe)
        // Process.run closed the parent's copies of the pipe ends it handed to each child.
    }

    /// Starts `process` with no signal blocked. posix_spawn gives the child the signal mask of the
    /// spawning thread, and the threads tests run on (Swift concurrency's, on Dispatch on Linux)
    /// block SIGTERM, SIGINT and most others: spawned from there, gpsd ignores gpsfake's SIGTERM
    /// (and gpsfake, which waits for its gpsd to die, never exits) and gpspipe ignores ours.
    static func spawn(_ process: Process) throws {
        var none = sigset_t()
        var saved = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, &saved)
        defer { pthread_sigmask(SIG_SETMASK, &saved, nil) }
        try process.run()
    }

    /// Reads gpx2fix's output as it comes, noting when each line arrived, until gpx2fix's end of
    /// file. gpspipe ends by itself when gpsfake stops its gpsd; it is stopped if it lingers.
    func collect() throws {
        let fd = output.fileHandleForReading.fileDescriptor
        var pending = Data()
        var chunk = [UInt8](repeating: 0, count: 65536)
        let limit = fakeStarted + LiveGPSD.deadline
        while true {
            let t = LiveGPSD.now()
            if fakeEnded == nil, !fake.isRunning { fakeEnded = t }
            if gpspipeEnded == nil, !gpspipe.isRunning { gpspipeEnded = t }
            if let ended = fakeEnded, t > ended + 5, gpspipe.isRunning, !gpspipeKilled {
                gpspipeKilled = true
                gpspipe.terminate()
            }
            if t > limit {
                timedOut = true
                return
            }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, 50)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { continue }
            let n = read(fd, &chunk, chunk.count)
            if n < 0, errno == EINTR { continue }
            let at = LiveGPSD.now()
            guard n > 0 else {
                eofAt = at
                break
            }
            pending.append(contentsOf: chunk[..<n])
            while let newline = pending.firstIndex(of: 0x0A) {
                let text = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                pending.removeSubrange(pending.startIndex...newline)
                if !text.isEmpty { lines.append(LiveGPSD.Line(at: at, text: text)) }
            }
        }
        if !pending.isEmpty { lines.append(LiveGPSD.Line(at: LiveGPSD.now(), text: String(decoding: pending, as: UTF8.self))) }
        let exitLimit = LiveGPSD.now() + 10
        while true {
            let t = LiveGPSD.now()
            if fakeEnded == nil, !fake.isRunning { fakeEnded = t }
            if gpspipeEnded == nil, !gpspipe.isRunning { gpspipeEnded = t }
            if !(fixer.isRunning || fake.isRunning || gpspipe.isRunning) || t > exitLimit { break }
            usleep(20_000)
        }
    }

    func summary(shortestReplay: Double) -> String {
        func rel(_ t: Double?) -> String { t.map { String(format: "%.2f s", $0 - fakeStarted) } ?? "never" }
        return "gpspipe \(mode): gpsd listening at \(rel(listening)), first fix at \(rel(lines.first?.at)), "
            + "last at \(rel(lines.last?.at)), \(lines.count) fixes, "
            + "replay no shorter than \(String(format: "%.2f s", shortestReplay)), "
            + "gpsfake ended at \(rel(fakeEnded)) (\(LiveGPSD.linger) s after its last sentence), "
            + "gpspipe at \(rel(gpspipeEnded))\(gpspipeKilled ? " (stopped)" : ""), gpx2fix EOF at \(rel(eofAt))"
    }

    var logs: String {
        "gpsfake: \(log("gpsfake.err")) gpspipe: \(log("gpspipe.err")) gpx2fix: \(log("gpx2fix.err"))"
    }

    /// Stops gpsfake and its gpsd: SIGTERM to the group (gpsfake then stops gpsd itself), SIGKILL
    /// to whatever of the group is left.
    private func stopFake() {
        let pid = fake.processIdentifier
        guard pid > 0 else { return }
        if fake.isRunning {
            kill(-pid, SIGTERM)
            let limit = LiveGPSD.now() + 3
            while fake.isRunning, LiveGPSD.now() < limit { usleep(20_000) }
        }
        kill(-pid, SIGKILL)  // gpsd, if gpsfake left it behind; ESRCH when the group is empty
        fake.waitUntilExit()
    }

    func stopAll() {
        for process in [gpspipe, fixer] where process.processIdentifier > 0 {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        stopFake()
        try? output.fileHandleForReading.close()
        try? FileManager.default.removeItem(at: dir)
    }

    static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        #if canImport(Darwin)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }

    static func tcpSocket() -> Int32 {
        #if canImport(Glibc)
            socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            socket(AF_INET, SOCK_STREAM, 0)
        #endif
    }

    /// A port that was free on 127.0.0.1 a moment ago (the kernel's pick for port 0).
    static func freeLoopbackPort() throws -> UInt16 {
        let fd = tcpSocket()
        guard fd >= 0 else { throw TestFailure("socket: errno \(errno)") }
        defer { close(fd) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw TestFailure("bind 127.0.0.1:0: errno \(errno)") }
        return UInt16(bigEndian: address.sin_port)
    }

    static func accepts(port: UInt16) -> Bool {
        let fd = tcpSocket()
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
