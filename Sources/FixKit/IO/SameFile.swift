#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Tells when an output is one of the inputs under another name (`fixfilter --rejects X X`,
/// `visits X >> X`, a hard or symbolic link), as `cp`, `cat` and `sort -o` do: by device and
/// inode, not by name. Only regular files count: `/dev/null` or a terminal may be both.
public struct FileIdentity: Hashable, Sendable {
    var device: UInt64
    var inode: UInt64

    /// The regular file at `path` (links followed), or nil when there is none.
    public init?(path: String) {
        var st = stat()
        guard ByteText.withPath(path, { stat($0, &st) }) == 0 else { return nil }
        self.init(st)
    }

    /// The regular file open on `fd`, or nil.
    public init?(fd: Int32) {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        self.init(st)
    }

    init?(_ st: stat) {
        guard (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
    }

    /// The first input that is the file `output` names, or nil. `-` is standard input (file
    /// descriptor 0).
    public static func input(among inputs: [InputName], sameAs output: FileIdentity) -> InputName? {
        inputs.first { name in
            (name.isStandardInput ? FileIdentity(fd: 0) : FileIdentity(path: name.path)) == output
        }
    }

    /// Refuses (exit 2, before anything is written) an output file that is one of the inputs:
    /// opening it for writing would empty the input before it is read. `what` names the
    /// output as the user gave it (`--rejects X`).
    public static func refuse(_ what: String, at path: String, ifAmong inputs: [InputName]) throws(OptionFileError) {
        guard let out = FileIdentity(path: path), let same = input(among: inputs, sameAs: out) else { return }
        throw OptionFileError(sameFileMessage(what, same))
    }

    /// The same for an output already open as `fd` (standard output redirected onto an input:
    /// `visits X >> X` would read what it writes).
    public static func refuse(_ what: String, fd: Int32, ifAmong inputs: [InputName]) throws(OptionFileError) {
        guard let out = FileIdentity(fd: fd), let same = input(among: inputs, sameAs: out) else { return }
        throw OptionFileError(sameFileMessage(what, same))
    }

    private static func sameFileMessage(_ what: String, _ input: InputName) -> String {
        let named = input.isStandardInput ? "standard input" : "the input \(input.shown)"
        return "\(what) is \(named) (the same file): writing it would destroy the input; give another file"
    }
}
