public import VidorientCore

/// Where an output the user named goes (`thumbnail -o`, `audit --html`, `report -o`): decided
/// here, once, for every command that writes a new file, as ffmpeg, vips and ImageMagick do.
///
/// - `-`, `/dev/stdout`, `/dev/fd/1`, `/proc/self/fd/1`: standard output itself, streamed.
/// - Something that exists and is not a regular file (a FIFO, a terminal, a device such as
///   `/dev/null`, a descriptor under `/proc`), through links or not: streamed into, opened
///   without creating or truncating. It is never replaced (as root, a rename over `/dev/stdout`
///   would replace the system's link).
/// - A folder: refused.
/// - Anything else is a file: a symbolic link is written through, the temporary file made beside
///   the link's target and renamed onto it, so the link stays a link.
public enum OutputDestination: Sendable, Hashable {
    case standardOutput
    /// The path as given, opened for writing as it is.
    case stream(String)
    /// The path of the regular file (or the new one) to write, links resolved.
    case file(String)

    /// Links followed at most this many times (the system's own limit, `MAXSYMLINKS`).
    private static let linkLimit = 40

    public init(path: String) throws(VidorientError) {
        if path == "-" {
            self = .standardOutput
            return
        }
        var current = path
        for _ in 0...Self.linkLimit {
            if current == "/proc/self/fd/1" || current == "/dev/fd/1" || current == "/dev/stdout" {
                self = .standardOutput
                return
            }
            var link = stat()
            guard current.withPathCString({ lstat($0, &link) }) == 0 else {
                guard errno == ENOENT else { throw System.error() }
                self = .file(current)
                return
            }
            let type = link.st_mode & S_IFMT
            if type == S_IFLNK, !current.hasPrefix("/proc/") {
                current = try Self.target(of: current)
                continue
            }
            // What the name leads to: a descriptor's magic link under /proc, or anything not a link.
            guard let status = System.status(current) else {
                // A link under /proc to something gone (a closed descriptor).
                throw .io("leads to nothing that can be written")
            }
            switch status.st_mode & S_IFMT {
            case S_IFDIR: throw .io("is a directory")
            case S_IFREG where !current.hasPrefix("/proc/"): self = .file(current)
            default: self = .stream(path)
            }
            return
        }
        throw .io("too many levels of symbolic links", code: ELOOP)
    }

    /// Where the link `path` points, a relative target taken from the link's folder.
    private static func target(of path: String) throws(VidorientError) -> String {
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = try System.call {
            path.withPathCString { name in
                buffer.withUnsafeMutableBytes {
                    readlink(name, $0.baseAddress!.assumingMemoryBound(to: CChar.self), $0.count)
                }
            }
        }
        // The bytes read inside the buffer's own access (a pointer made from the array for one
        // call would dangle once that call returns).
        let target = buffer.withUnsafeBytes { String(pathBytes: UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        guard !target.hasPrefix("/") else { return target }
        return SafeWrite.split(path).folder + "/" + target
    }

    /// Whether the output is standard output, where nothing else may be printed.
    public var isStandardOutput: Bool { self == .standardOutput }

    /// Whether it is written as a stream (not through a temporary file and a rename).
    public var isStream: Bool {
        if case .file = self { return false }
        return true
    }

    /// A descriptor to stream into (standard output's own, or the path opened without creating
    /// or truncating); `close` tells whether the caller closes it.
    package func openStream() throws(VidorientError) -> (descriptor: Int32, close: Bool) {
        switch self {
        case .standardOutput: return (STDOUT_FILENO, false)
        case .stream(let path):
            let descriptor = try System.call { path.withPathCString { open($0, O_WRONLY | O_NOCTTY | O_CLOEXEC) } }
            return (descriptor, true)
        case .file(let path): throw .io("'\(path)' is a file, not a stream")
        }
    }
}
