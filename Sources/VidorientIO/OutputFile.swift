public import VidorientCore

/// Writing a new output file (a thumbnail, a page) the way every command does: through a
/// temporary file beside it, flushed, then renamed into place and the folder flushed, so that a
/// reader never sees half a picture and a crash leaves the old file or the whole new one.
public enum OutputFile {
    /// Writes `bytes` to `path`, replacing a regular file there. An existing output that is not a
    /// regular file (`/dev/stdout`, a FIFO, a device) is written to as a stream instead, and never
    /// replaced. The error names the path (`could not write 'PATH': …`).
    public static func write(_ bytes: [UInt8], to path: String) throws(VidorientError) {
        do throws(VidorientError) {
            if let existing = System.status(path), existing.st_mode & S_IFMT != S_IFREG {
                guard existing.st_mode & S_IFMT != S_IFDIR else { throw .io("is a directory") }
                try stream(bytes, to: path)
                return
            }
            // A new file: its mode is 0644 less the umask, as a file any program creates.
            // No sweep for abandoned temporary files: a folder of thousands of outputs would be listed
            // once per output.
            let (folder, temporary, descriptor): (String, String, Int32)
            do throws(VidorientError) {
                (folder, temporary, descriptor) = try SafeWrite.createTemporary(
                    for: path, mode: 0o644, removingAbandoned: false)
            } catch { throw System.error(code: error.code) }
            var renamed = false
            defer {
                close(descriptor)
                if !renamed { _ = temporary.withPathCString { unlink($0) } }
            }
            try System.write(descriptor, bytes, at: 0)
            try System.call { fsync(descriptor) }
            try System.call { temporary.withPathCString { from in path.withPathCString { rename(from, $0) } } }
            renamed = true
            try SafeWrite.synchronizeFolder(folder)
        } catch {
            throw error.at(path: path, action: "write")
        }
    }

    /// Writes `bytes` into an existing non-regular file, opened without creating or truncating.
    static func stream(_ bytes: [UInt8], to path: String) throws(VidorientError) {
        let descriptor = try System.call { path.withPathCString { open($0, O_WRONLY | O_NOCTTY | O_CLOEXEC) } }
        defer { close(descriptor) }
        try System.write(descriptor, bytes, at: nil)
    }

    /// A folder to write into: made when missing; refused when something else has its name.
    public static func prepareFolder(_ path: String) throws(VidorientError) {
        if let status = System.status(path) {
            guard (status.st_mode & S_IFMT) == S_IFDIR else {
                throw VidorientError.io("not a directory").at(path: path, action: "write to")
            }
            return
        }
        do throws(VidorientError) { try System.call { path.withPathCString { mkdir($0, 0o755) } } } catch {
            throw error.at(path: path, action: "create")
        }
    }
}
