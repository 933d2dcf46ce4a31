public import VidorientCore

/// Writing a new output file (a thumbnail, a page) the way every command does: through a
/// temporary file beside it, flushed, then renamed into place and the folder flushed, so that a
/// reader never sees half a picture and a crash leaves the old file or the whole new one.
public enum OutputFile {
    /// Writes `bytes` where `path` leads (`OutputDestination`): a regular file, or a new one, is
    /// replaced through a temporary file and a rename (through a symbolic link, the target is);
    /// standard output (`-`, `/dev/stdout`), a FIFO or a device is written to as a stream and never
    /// replaced. The error names the path (`could not write 'PATH': …`).
    public static func write(_ bytes: [UInt8], to path: String) throws(VidorientError) {
        do throws(VidorientError) {
            let destination = try OutputDestination(path: path)
            guard case .file(let target) = destination else {
                let (descriptor, owned) = try destination.openStream()
                defer { if owned { close(descriptor) } }
                try System.write(descriptor, bytes, at: nil)
                return
            }
            // A new file: its mode is 0644 less the umask, as a file any program creates.
            // No sweep for abandoned temporary files: a folder of thousands of outputs would be listed
            // once per output.
            let pending: PendingFile
            do throws(VidorientError) {
                pending = try PendingFile(for: target, mode: 0o644, removingAbandoned: false)
            } catch { throw System.error(code: error.code) }
            try System.write(pending.descriptor, bytes, at: 0)
            // The error names the path (below): the system's reason alone.
            try pending.flush(nil)
            try pending.commit(nil)
        } catch {
            throw error.at(path: path, action: "write")
        }
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
