// The libFuzzer entry point and what every target shares: running a tool in-process on the
// fuzzer's bytes, fed through a pipe one chunk a read, with its output and messages captured.
// Each target file in fuzz/targets defines `fuzzTarget(_:)`; fuzz/fuzz.sh links it with this
// file and FixKit (built with -enable-testing, so targets may use internal API).

@testable import FixKit

#if canImport(Glibc)
    import Glibc
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func LLVMFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    fuzzTarget(UnsafeBufferPointer(start: data, count: size))
    return 0
}

/// A finding: libFuzzer reports the abort with the input that caused it.
func fuzzFailure(_ message: String) -> Never {
    let text = "fuzz: " + message + "\n"
    _ = text.withCString { write(2, $0, strlen($0)) }
    abort()
}

enum Fuzz {
    /// What a tool did with an input: its standard output, standard error and exit status.
    struct Run: Equatable {
        var out: [UInt8]
        var err: [UInt8]
        var status: Int32
    }

    /// The descriptor the input pipe's read end is kept at, so that the input's file name
    /// (and so gpx2fix's trace) is the same on every run: /proc/self/fd/200.
    static let inputFD: Int32 = 200
    static let inputPath = "/proc/self/fd/200"
    static let outFD = scratchFile("out")
    static let errFD = scratchFile("err")

    /// A file of our own for a tool's output, unlinked at once so that nothing is left behind.
    static func scratchFile(_ what: String) -> Int32 {
        let path = "/tmp/fixkit-fuzz-\(what)-\(getpid())"
        let fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { fuzzFailure("cannot create \(path): \(errno)") }
        unlink(path)
        return fd
    }

    /// F_SETPIPE_SZ, which Glibc's Swift module does not export (a _GNU_SOURCE macro).
    static let setPipeSize: Int32 = 1031

    /// Runs `T` with `arguments` and the input file last, feeding `input` in `chunks` (sizes,
    /// cycled; nil: everything at once), one chunk before each read the tool makes.
    static func tool<T: Tool>(
        _ type: T.Type, _ arguments: [String], _ input: UnsafeBufferPointer<UInt8>, chunks: [Int]? = nil
    )
        -> Run
    {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { fuzzFailure("pipe: \(errno)") }
        // A pipe of 1 MiB holds any input the fuzzer makes (-max_len stays below it), so a
        // write of one chunk never blocks.
        _ = fcntl(fds[1], setPipeSize, Int32(1 << 20))
        _ = fcntl(fds[1], F_SETFL, O_NONBLOCK)
        guard dup2(fds[0], inputFD) == inputFD else { fuzzFailure("dup2: \(errno)") }
        close(fds[0])
        let writeEnd = fds[1]
        var writeOpen = true
        var offset = 0
        var k = 0
        let feed = {
            guard writeOpen else { return }
            if offset < input.count {
                var n = input.count - offset
                if let chunks, !chunks.isEmpty { n = min(n, max(1, chunks[k % chunks.count])) }
                k += 1
                let w = write(writeEnd, input.baseAddress! + offset, n)
                if w > 0 { offset += w }
            }
            if offset >= input.count {
                close(writeEnd)
                writeOpen = false
            }
        }
        for fd in [outFD, errFD] {
            _ = ftruncate(fd, 0)
            _ = lseek(fd, 0, SEEK_SET)
        }
        let status = ToolMain.run(
            type, arguments: arguments + [inputPath], outputFD: outFD, errorFD: errFD, beforeEachRead: feed)
        if writeOpen { close(writeEnd) }
        close(inputFD)
        return Run(out: contents(outFD), err: contents(errFD), status: status)
    }

    static func contents(_ fd: Int32) -> [UInt8] {
        let size = Int(lseek(fd, 0, SEEK_END))
        var out = [UInt8](repeating: 0, count: max(0, size))
        _ = lseek(fd, 0, SEEK_SET)
        var got = 0
        while got < size {
            let n = out.withUnsafeMutableBytes { read(fd, $0.baseAddress! + got, size - got) }
            if n <= 0 { break }
            got += n
        }
        return Array(out[..<got])
    }

    /// Chunk sizes drawn from the input's own hash: the same input is always cut the same way,
    /// so a finding reproduces, while different inputs are cut differently.
    static func chunkSizes(for input: UnsafeBufferPointer<UInt8>, count: Int = 16) -> [Int] {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in input { h = (h ^ UInt64(b)) &* 0x100_0000_01B3 }
        var random = SeededRandom(seed: h)
        return (0..<count).map { _ in
            // Mostly tiny cuts (through a BOM, a tag, a number), sometimes larger ones.
            let r = random.next()
            return r % 4 == 0 ? Int((r >> 8) % 4096) + 1 : Int((r >> 8) % 7) + 1
        }
    }

    /// gpx2fix reading `input` as format `name` (forced, so that mutations that break
    /// recognition still reach the reader), once whole and once fed in pieces cut from the
    /// input's hash: a reader must not depend on how reads are split (a pipe or a live feed
    /// cuts anywhere; a cut through a multi-byte token is where buffering bugs live), so the
    /// two runs must agree byte for byte. Checks the status, the messages, and that every line
    /// written is a fix that reads back.
    @discardableResult
    static func reader(_ name: String, _ arguments: [String] = [], _ input: UnsafeBufferPointer<UInt8>) -> Run {
        let args = ["--format", name] + arguments
        let what = "gpx2fix --format \(name)"
        let whole = tool(Gpx2Fix.self, args, input)
        expectStatus(whole, what)
        expectPrintableMessages(whole, what)
        expectFixes(whole, what)
        let chunks = chunkSizes(for: input)
        let cut = tool(Gpx2Fix.self, args, input, chunks: chunks)
        expectSame(whole, cut, "\(what), cut as \(chunks),")
        return whole
    }

    /// Fails unless two runs of one tool on the same bytes gave the same output, messages and
    /// status.
    static func expectSame(_ whole: Run, _ cut: Run, _ what: String) {
        guard whole != cut else { return }
        fuzzFailure(
            "\(what) gives other results than whole:\n--- whole (\(whole.status))\n\(String(decoding: whole.out + whole.err, as: UTF8.self))\n--- cut (\(cut.status))\n\(String(decoding: cut.out + cut.err, as: UTF8.self))"
        )
    }

    /// Fails unless every line of the run's standard output is a fix record that decodes.
    static func expectFixes(_ run: Run, _ what: String) {
        var decoder = FixDecoder()
        for line in run.out.split(separator: 0x0A) {
            let ok = line.withUnsafeBufferPointer { (try? decoder.decode($0)) != nil }
            if !ok { fuzzFailure("\(what) wrote a line that is not a fix: \(String(decoding: line, as: UTF8.self))") }
        }
    }

    /// Fails unless the tool ended with a status SPEC allows.
    static func expectStatus(_ run: Run, _ what: String) {
        guard (0...2).contains(run.status) else { fuzzFailure("\(what): exit status \(run.status)") }
    }

    /// Fails unless every byte a tool wrote to standard error is printable text (defect 7):
    /// messages quote input, and a terminal must never receive its control bytes raw.
    static func expectPrintableMessages(_ run: Run, _ what: String) {
        for b in run.err where b < 0x20 && b != 0x0A || b == 0x7F {
            fuzzFailure("\(what): standard error holds the control byte 0x\(String(b, radix: 16))")
        }
        if String(validating: run.err, as: UTF8.self) == nil { fuzzFailure("\(what): standard error is not UTF-8") }
    }
}
