public import VidorientCore

/// `-` given as an input file: standard input copied into a temporary file, since FFmpeg and the
/// readers take a path and seek (a pipe cannot). The copy is made unreadable to others and
/// removed by `remove()`; its size is what came, nothing is taken on trust.
public struct SpooledInput: Sendable {
    /// The temporary file that holds what standard input gave.
    public let path: String

    /// Copies standard input to the end into a new file in `$TMPDIR` (else `/tmp`).
    public init() throws(VidorientError) {
        // Its bytes, not its repaired UTF-8 (PathBytes.swift).
        let folder =
            getenv("TMPDIR").map { String(pathBytes: UnsafeRawBufferPointer(start: $0, count: strlen($0))) }
            .flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        let name = folder + "/vidorient-stdin-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        let descriptor = try System.call("could not make a temporary file for standard input in '\(folder)'") {
            name.withPathCString { open($0, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
        }
        path = name
        defer { close(descriptor) }
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
            remove()
            throw error
        }
    }

    public func remove() {
        _ = path.withPathCString { unlink($0) }
    }
}
