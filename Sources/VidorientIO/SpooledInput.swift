public import VidorientCore

/// `-` given as an input file: standard input copied into a temporary file, since FFmpeg and the
/// readers take a path and seek (a pipe cannot). The file has no name from the start
/// (`O_TMPFILE`; where the file system lacks it, its name is removed as soon as it is open), so
/// it cannot outlive the process however that ends: SIGINT, SIGTERM, SIGKILL or a crash. The
/// readers reach it as `/proc/self/fd/N`. Its size is what came, nothing is taken on trust.
public struct SpooledInput: Sendable {
    /// The path that names the open file: `/proc/self/fd/N`.
    public let path: String
    private let descriptor: Int32

    /// Linux's `O_TMPFILE` (`__O_TMPFILE | O_DIRECTORY`), which Swift's Glibc module does not
    /// import: the same value on x86-64 and arm64.
    private static let temporaryFileFlag: Int32 = 0o20_000_000 | O_DIRECTORY

    /// Copies standard input to the end into a new nameless file in `$TMPDIR` (else `/tmp`).
    public init() throws(VidorientError) {
        // Its bytes, not its repaired UTF-8 (PathBytes.swift).
        let folder =
            getenv("TMPDIR").map { String(pathBytes: UnsafeRawBufferPointer(start: $0, count: strlen($0))) }
            .flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        let what = "could not make a temporary file for standard input in '\(folder)'"
        var opened = folder.withPathCString { open($0, O_RDWR | O_CLOEXEC | Self.temporaryFileFlag, 0o600) }
        if opened < 0, [EOPNOTSUPP, EISDIR, EINVAL].contains(errno) {
            // No O_TMPFILE here: a name, removed at once. Only a kill in between leaves it.
            let name = folder + "/vidorient-stdin-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
            opened = name.withPathCString { open($0, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
            if opened >= 0 { _ = name.withPathCString { unlink($0) } }
        }
        guard opened >= 0 else { throw System.error(what) }
        let descriptor = opened
        self.descriptor = descriptor
        path = "/proc/self/fd/\(descriptor)"
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { chunk.deallocate() }
        do throws(VidorientError) {
            while true {
                let got = try System.call("could not read standard input") {
                    read(STDIN_FILENO, chunk.baseAddress, chunk.count)
                }
                if got == 0 { break }
                try System.write(descriptor, UnsafeRawBufferPointer(rebasing: chunk[0..<got]), at: nil)
            }
        } catch {
            close(descriptor)
            throw error
        }
    }

    /// Closes the file, which frees its space (it has no name to remove).
    public func remove() {
        close(descriptor)
    }
}
