package import VidorientCore

/// The file-system steps the writers (`EditWriter`, `OutputFile`, `HTMLReport`, through
/// `PendingFile`) take to write safely, each one refusing cleanly rather than leaving a half-done job.
package enum SafeWrite {
    /// A new temporary file beside `destination`, in its folder (a rename stays on one file system),
    /// named so that one abandoned by a killed run is recognised and removed (the first step here),
    /// created exclusively and open for writing with `mode` (less the umask; 0600 until a writer
    /// copies the original's permissions).
    fileprivate static func createTemporary(for destination: String, mode: mode_t, removingAbandoned: Bool)
        throws(VidorientError) -> (folder: String, path: String, descriptor: Int32)
    {
        let (folder, name) = split(destination)
        if removingAbandoned { removeAbandonedPartials(in: folder, name: name) }
        let random = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let temporary = folder + "/" + partialPrefix(for: name) + "\(getpid())-\(random)" + partialSuffix
        let descriptor = try System.call("cannot create a temporary file in '\(folder)'") {
            temporary.withPathCString { open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode) }
        }
        return (folder, temporary, descriptor)
    }

    /// Whether `path` is still the file `status` described: the same inode, size and modification time.
    package static func isUnchanged(_ path: String, since status: stat) -> Bool {
        guard let now = System.status(path) else { return false }
        return now.st_dev == status.st_dev && now.st_ino == status.st_ino && now.st_size == status.st_size
            && now.st_mtim.tv_sec == status.st_mtim.tv_sec && now.st_mtim.tv_nsec == status.st_mtim.tv_nsec
    }

    /// `path` with symbolic links resolved, when it exists; as given otherwise.
    package static func resolved(_ path: String) -> String {
        guard let real = path.withPathCString({ realpath($0, nil) }) else { return path }
        defer { free(real) }
        return String(pathBytes: UnsafeRawBufferPointer(start: real, count: strlen(real)))
    }

    package static func split(_ path: String) -> (folder: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let folder = String(path[..<slash])
        return (folder.isEmpty ? "/" : folder, String(path[path.index(after: slash)...]))
    }

    /// Refuses a file that is read-only by its mode bits too: root may write anything, but a
    /// file someone made read-only is not one to rewrite behind their back.
    package static func checkWritable(_ path: String, _ status: stat) throws(VidorientError) {
        if path.withPathCString({ access($0, W_OK) }) != 0 {
            let code = errno
            throw .io(
                code == EROFS ? "read-only file system" : "file is read-only (\(System.reason(code)))", code: code)
        }
        if status.st_mode & 0o222 == 0 {
            throw .io("file is read-only (mode \(String(status.st_mode & 0o7777, radix: 8)))")
        }
    }

    package static func checkFolderWritable(of path: String) throws(VidorientError) {
        let folder = split(path).folder
        guard folder.withPathCString({ access($0, W_OK | X_OK) }) == 0 else {
            throw System.error("cannot create a temporary file in '\(folder)'")
        }
    }

    /// Refuses an output that must not be replaced: a folder, something that is not a regular
    /// file, the input itself (`input`, when there is one), a read-only file, an unwritable folder.
    package static func checkOutput(_ given: String, input: stat?) throws(VidorientError) {
        let output = try outputFile(given)
        if let existing = System.status(output) {
            if let input, existing.st_dev == input.st_dev && existing.st_ino == input.st_ino {
                throw .io("output '\(given)' is the input itself; leave out -o to fix it in place")
            }
            do { try checkWritable(output, existing) } catch { throw error.context("output '\(given)'") }
        }
        try checkFolderWritable(of: output)
    }

    /// The regular file an output path leads to (`OutputDestination`: through links, the
    /// target). A copy is verified by reading it back, which a stream cannot be, so standard
    /// output, a FIFO or a device is refused, and never replaced (as root, `-o /dev/full` would
    /// replace the device node).
    package static func outputFile(_ given: String) throws(VidorientError) -> String {
        let destination: OutputDestination
        do throws(VidorientError) { destination = try OutputDestination(path: given) } catch {
            throw .io("output '\(given)' \(error.reason)", code: error.code)
        }
        guard case .file(let target) = destination else {
            throw .io("output '\(given)' is not a regular file; fix writes only regular files")
        }
        return target
    }

    // MARK: Copy, patch, flush, check, rename

    package static let partialSuffix = ".partial"

    /// `.NAME.vidorient-PID-RANDOM.partial`: hidden, and never mistaken for the fixed file.
    package static func partialPrefix(for name: String) -> String {
        // Room for the rest within the 255-byte limit on a file name.
        "." + String(pathBytes: name.pathBytes.prefix(180)) + ".vidorient-"
    }

    private typealias CopyFileRange =
        @convention(c) (
            Int32, UnsafeMutablePointer<Int64>?, Int32, UnsafeMutablePointer<Int64>?, Int, UInt32
        ) -> Int

    /// glibc's `copy_file_range`, looked up at run time: Swift's Glibc module leaves out the
    /// GNU extensions it is declared among. nil where the C library lacks it.
    private static let copyFileRange: CopyFileRange? = dlsym(nil, "copy_file_range").map {
        unsafeBitCast($0, to: CopyFileRange.self)
    }

    /// Copies `count` bytes from `inStart` in `source` to `outStart` in `destination` with
    /// `copy_file_range`, which lets the kernel (or the file system, by sharing blocks on Btrfs or
    /// XFS) do the work; falls back to read and write where it cannot.
    package static func copy(
        from source: Int32, at inStart: Int64, to destination: Int32, at outStart: Int64, count: Int64
    ) throws(VidorientError) {
        var inOffset = inStart
        var outOffset = outStart
        let inEnd = inStart + count
        guard let copyFileRange else {
            try copyByReading(from: source, at: inOffset, to: destination, at: outOffset, count: count)
            return
        }
        while inOffset < inEnd {
            let chunk = Int(min(inEnd - inOffset, 1 << 30))
            let copied: Int
            do throws(VidorientError) {
                copied = try System.call { copyFileRange(source, &inOffset, destination, &outOffset, chunk, 0) }
            } catch {
                // Across file systems, or where the kernel or the file system cannot: read and write.
                guard [EXDEV, ENOSYS, EINVAL, EOPNOTSUPP].contains(error.code) else {
                    throw error.context("could not copy the file")
                }
                try copyByReading(from: source, at: inOffset, to: destination, at: outOffset, count: inEnd - inOffset)
                return
            }
            if copied == 0 { throw .io("the file ended at \(inOffset) while it was being copied") }
        }
    }

    private static func copyByReading(
        from source: Int32, at inStart: Int64, to destination: Int32, at outStart: Int64, count: Int64
    ) throws(VidorientError) {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var done: Int64 = 0
        while done < count {
            let wanted = Int(min(Int64(buffer.count), count - done))
            let got = try buffer.withUnsafeMutableBytes { raw in
                Result { () throws(VidorientError) in
                    try System.read(
                        source, into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<wanted]), at: inStart + done)
                }
            }.get()
            guard got == wanted else { throw .io("the file ended while it was being copied") }
            try buffer.withUnsafeBytes { raw in
                Result { () throws(VidorientError) in
                    try System.write(destination, UnsafeRawBufferPointer(rebasing: raw[0..<got]), at: outStart + done)
                }
            }.get()
            done += Int64(got)
        }
    }

    private typealias SyncFileRange = @convention(c) (Int32, Int64, Int64, UInt32) -> Int32

    /// glibc's `sync_file_range` (a GNU extension, as `copy_file_range`); nil where it lacks it.
    private static let syncFileRange: SyncFileRange? = dlsym(nil, "sync_file_range").map {
        unsafeBitCast($0, to: SyncFileRange.self)
    }

    /// Starts writing the file's dirty pages to the disk and returns at once
    /// (`SYNC_FILE_RANGE_WRITE`), so that the disk works while the file is read back; the `fsync`
    /// after it then waits for less. Only a hint: nothing depends on it having been done.
    package static func startWriteback(_ descriptor: Int32) {
        _ = syncFileRange?(descriptor, 0, 0, 2)
    }

    private typealias SyncFileSystem = @convention(c) (Int32) -> Int32

    /// glibc's `syncfs` (a GNU extension); nil where it lacks it.
    private static let syncFileSystem: SyncFileSystem? = dlsym(nil, "syncfs").map {
        unsafeBitCast($0, to: SyncFileSystem.self)
    }

    /// Everything written to the file system that holds `folder` put on the disk, renames
    /// included (`syncfs`; `sync` where the C library lacks it): one call for a batch's outputs
    /// instead of two `fsync`s each.
    package static func synchronizeFileSystem(of folder: String) throws(VidorientError) {
        let descriptor = try System.call("could not open '\(folder)' to flush it") {
            folder.withPathCString { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        }
        defer { close(descriptor) }
        guard let syncFileSystem else { return sync() }
        try System.call("could not flush '\(folder)'") { syncFileSystem(descriptor) }
    }

    /// A rename is only durable once the folder holding it is flushed.
    package static func synchronizeFolder(_ folder: String) throws(VidorientError) {
        let descriptor = try System.call("could not open '\(folder)' to flush it") {
            folder.withPathCString { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        }
        defer { close(descriptor) }
        try System.call("could not flush '\(folder)'") { fsync(descriptor) }
    }

    /// Removes temporary files that a killed writer of the same file left behind: those whose
    /// process is gone. A live process's file is its own business.
    package static func removeAbandonedPartials(in folder: String, name: String) {
        let prefix = partialPrefix(for: name).pathBytes, suffix = partialSuffix.pathBytes
        // A folder that cannot be listed has no partials to clean; creating the new one then says why.
        guard let directory = folder.withPathCString({ opendir($0) }) else { return }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            // Compared as bytes: the name need not be UTF-8.
            let entryName = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            guard entryName.count >= prefix.count + suffix.count, entryName.starts(with: prefix),
                entryName.suffix(suffix.count).elementsEqual(suffix)
            else { continue }
            let middle = String(decoding: entryName.dropFirst(prefix.count).dropLast(suffix.count), as: UTF8.self)
            guard let pidText = middle.split(separator: "-").first, let pid = pid_t(pidText), pid > 0 else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH {
                _ = (folder + "/" + String(pathBytes: entryName)).withPathCString { unlink($0) }
            }
        }
    }
}

/// A file being written beside the file it will become: created exclusively in the same folder
/// (`SafeWrite.createTemporary`), written, flushed, and renamed into place by `commit`, the folder
/// flushed after; removed when it is never committed (a failed or interrupted write leaves nothing
/// behind). The one way every file we create or replace is written: `EditWriter`'s copies,
/// `OutputFile` (thumbnails) and `HTMLReport`'s page.
package final class PendingFile {
    /// The temporary file's path.
    package let path: String
    /// Where `commit` renames it to.
    package let destination: String
    /// The folder both are in.
    package let folder: String
    /// The temporary file, open for writing; -1 once closed or handed over (`handOver`).
    package private(set) var descriptor: Int32
    private var committed = false

    /// A new temporary file for `destination` with `mode` (less the umask); `removingAbandoned`
    /// sweeps the folder for ones a killed run left (not for a folder of thousands of outputs).
    package init(for destination: String, mode: mode_t = 0o600, removingAbandoned: Bool = true)
        throws(VidorientError)
    {
        (folder, path, descriptor) = try SafeWrite.createTemporary(
            for: destination, mode: mode, removingAbandoned: removingAbandoned)
        self.destination = destination
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        if !committed { _ = path.withPathCString { unlink($0) } }
    }

    /// Everything written so far on the disk (`what` names the file in the refusal; nil: the
    /// system's reason alone, for a caller that names the file itself).
    package func flush(_ what: String?) throws(VidorientError) {
        try System.call(what.map { "could not flush \($0)" }) { fsync(descriptor) }
    }

    /// The descriptor, no longer closed here (a `FileLock` adopts it, so the lock goes with the name).
    package func handOver() -> Int32 {
        defer { descriptor = -1 }
        return descriptor
    }

    /// Closes the descriptor, if still open here (the rename needs no open file).
    package func closeFile() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
    }

    /// Renamed over `destination` (atomic on one file system), then the folder flushed so that
    /// the new name survives a crash. Flush first: nothing is renamed before it is on the disk.
    /// `flushingFolder` false is for a batch's file that was not flushed either
    /// (`OutputFile.Flush.later`): the caller puts the whole batch on the disk once it is
    /// written (`SafeWrite.synchronizeFileSystem`).
    package func commit(_ what: String?, flushingFolder: Bool = true) throws(VidorientError) {
        try System.call(what.map { "could not rename \($0) into place" }) {
            path.withPathCString { from in destination.withPathCString { rename(from, $0) } }
        }
        committed = true
        if flushingFolder { try SafeWrite.synchronizeFolder(folder) }
    }
}
