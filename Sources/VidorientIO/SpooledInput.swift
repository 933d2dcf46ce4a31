public import VidorientCore

/// `-` given as an input file: standard input copied into a temporary file, since FFmpeg and the
/// readers take a path and seek (a pipe cannot). The copy is made unreadable to others and
/// removed by `remove()`; its size is what came, nothing is taken on trust.
public struct SpooledInput: Sendable {
    /// The temporary file that holds what standard input gave.
    public let path: String

    /// Copies standard input to the end into a new file in `$TMPDIR` (else `/tmp`).
    public init() throws(VidorientError) {
        let folder = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((folder + "/vidorient-stdin-XXXXXX").pathBytes) + [0]
        let descriptor = template.withUnsafeMutableBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { mkstemp($0.baseAddress!) }
        }
        guard descriptor >= 0 else { throw System.error("could not make a temporary file for standard input") }
        path = String(pathBytes: template.dropLast())
        defer { close(descriptor) }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
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
