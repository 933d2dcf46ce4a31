public import VidorientCore

/// Writing a new output file (a thumbnail, a page) the way every command does: through a
/// temporary file beside it, flushed, then renamed into place and the folder flushed, so that a
/// reader never sees half a picture and a crash leaves the old file or the whole new one (a
/// batch's `.later` files: flushed together at its end, `flushFileSystems`).
public enum OutputFile {
    /// When a written file is put on the disk.
    public enum Flush: Sendable {
        /// Before `write` returns: the file, then its folder (`fsync` each).
        case now
        /// By the caller, once for a batch (`flushFileSystems`): a reader still never sees half a
        /// file (the rename is atomic), but after a power failure a file written since the last
        /// flush may be empty. Two `fsync`s a thumbnail serialized the workers of a folder's
        /// batch on the file system's journal (issue 32).
        case later
    }

    /// Writes `bytes` where `path` leads (`OutputDestination`): a regular file, or a new one, is
    /// replaced through a temporary file and a rename (through a symbolic link, the target is);
    /// standard output (`-`, `/dev/stdout`), a FIFO or a device is written to as a stream and never
    /// replaced. The error names the path (`could not write 'PATH': …`). Returns the folder the
    /// file went into (through a symbolic link, the target's), the one to flush for `.later`; nil
    /// for a stream.
    @discardableResult
    public static func write(_ bytes: [UInt8], to path: String, flush: Flush = .now) throws(VidorientError)
        -> String?
    {
        do throws(VidorientError) {
            let destination = try OutputDestination(path: path)
            guard case .file(let target) = destination else {
                let (descriptor, owned) = try destination.openStream()
                defer { if owned { close(descriptor) } }
                try System.write(descriptor, bytes, at: nil)
                return nil
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
            if case .now = flush { try pending.flush(nil) }
            try pending.commit(nil, flushingFolder: flush == .now)
            return pending.folder
        } catch {
            throw error.at(path: path, action: "write")
        }
    }

    /// Puts every file written with `.later` into `folders` on the disk: one `syncfs` for each
    /// file system they are on (a `{relpath}` batch writes into thousands of folders). Returns the
    /// folders on a file system that could not be flushed, each with the error naming it
    /// (`could not write 'FOLDER': …`); empty when all went well.
    public static func flushFileSystems(of folders: Set<String>) -> [String: VidorientError] {
        var byDevice: [UInt64?: [String]] = [:]
        for folder in folders.sorted() {
            byDevice[System.status(folder).map { UInt64($0.st_dev) }, default: []].append(folder)
        }
        var failed: [String: VidorientError] = [:]
        for (device, members) in byDevice {
            // A folder whose file system is not known (no stat) is flushed by itself.
            let groups = device == nil ? members.map { [$0] } : [members]
            for group in groups {
                do { try SafeWrite.synchronizeFileSystem(of: group[0]) } catch {
                    for folder in group { failed[folder] = error.at(path: folder, action: "write") }
                }
            }
        }
        return failed
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
