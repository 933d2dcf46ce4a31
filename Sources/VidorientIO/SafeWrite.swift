#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension MatrixFix {
    /// Reads the file at `path`, plans the change and writes it in `mode`, unless `dryRun`.
    /// Refuses, having changed nothing, what cannot be read, planned (see `init`) or written: a
    /// read-only file, a folder where no temporary file can be made, an unusable `-o` path.
    /// A file already as asked is left untouched (except that a copy is still written).
    ///
    /// Unless `dryRun`, the file is locked (`FileLock`) for the whole run; a caller that checks
    /// the result under the lock takes it itself and passes it as `lock`.
    public static func fix(
        path: String, change: OrientationChange, resetMovieMatrix: Bool = false, mode: WriteMode = .replace,
        dryRun: Bool = false, preserveModificationTime: Bool = false, lock: FileLock? = nil
    ) throws(ISOBMFFError) -> FixResult {
        // Before the first read, which may move the access time.
        let times = preserveModificationTime && !dryRun ? try FileTimes(path: path) : nil
        var held = lock
        if !dryRun && held == nil { held = try FileLock(path: path) }
        defer { withExtendedLifetime(held) {} }
        let input = try FileBytes(path: path)
        let movie = try MovieStructure(input)
        let plan = try MatrixFix(movie, change: change, resetMovieMatrix: resetMovieMatrix)
        let status = try input.status()
        try EditWriter.check(path: path, status: status, mode: mode)

        var result = FixResult(path: path, plan: plan, movie: movie, mode: mode, dryRun: dryRun)
        guard !dryRun else { return result }
        let expected = plan.expectedStructure(from: movie)
        let outcome = try EditWriter.write(
            plan.edit, path: path, mode: mode, preservingTimes: times, lock: held
        ) { written in
            // The whole structure, new matrices included, must be exactly the planned one.
            guard try MovieStructure(path: written) == expected else {
                throw ISOBMFFError(.io, "its matrices or boxes are not the planned ones")
            }
        }
        result.writtenPath = outcome.writtenPath
        result.bytesWritten = outcome.bytesWritten
        result.verified = outcome.writtenPath != nil
        return result
    }
}

/// The file-system steps every writer (`EditWriter`, `ReplacementWriter`) takes to write safely, each one
/// refusing cleanly rather than leaving a half-done job.
enum SafeWrite {
    static func errnoReason(_ code: Int32 = errno) -> String { String(cString: strerror(code)).lowercased() }

    /// A new temporary file beside `destination`, in its folder (a rename stays on one file system),
    /// named so that one abandoned by a killed run is recognised and removed (the first step here),
    /// created exclusively and open for writing, mode 0600 until the writer copies the permissions.
    static func createTemporary(for destination: String) throws(ISOBMFFError)
        -> (folder: String, path: String, descriptor: Int32)
    {
        let (folder, name) = split(destination)
        removeAbandonedPartials(in: folder, name: name)
        let random = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let temporary = folder + "/" + partialPrefix(for: name) + "\(getpid())-\(random)" + partialSuffix
        let descriptor = temporary.withPathCString { open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
        guard descriptor >= 0 else {
            throw ISOBMFFError(.io, "cannot create a temporary file in '\(folder)': \(errnoReason())")
        }
        return (folder, temporary, descriptor)
    }

    /// Whether `path` is still the file `status` described: the same inode, size and modification time.
    static func isUnchanged(_ path: String, since status: stat) -> Bool {
        var now = stat()
        return path.withPathCString({ stat($0, &now) }) == 0 && now.st_dev == status.st_dev
            && now.st_ino == status.st_ino && now.st_size == status.st_size
            && now.st_mtim.tv_sec == status.st_mtim.tv_sec && now.st_mtim.tv_nsec == status.st_mtim.tv_nsec
    }

    /// `temporary` renamed over `destination` (atomic on one file system), then the folder flushed
    /// so that the new name survives a crash. `what` names the temporary file in the refusal.
    static func moveIntoPlace(_ temporary: String, over destination: String, folder: String, what: String)
        throws(ISOBMFFError)
    {
        guard temporary.withPathCString({ from in destination.withPathCString { rename(from, $0) } }) == 0 else {
            throw ISOBMFFError(.io, "could not rename \(what) into place: \(errnoReason())")
        }
        try synchronizeFolder(folder)
    }

    /// `path` with symbolic links resolved, when it exists; as given otherwise.
    static func resolved(_ path: String) -> String {
        guard let real = path.withPathCString({ realpath($0, nil) }) else { return path }
        defer { free(real) }
        return String(pathBytes: UnsafeRawBufferPointer(start: real, count: strlen(real)))
    }

    static func split(_ path: String) -> (folder: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let folder = String(path[..<slash])
        return (folder.isEmpty ? "/" : folder, String(path[path.index(after: slash)...]))
    }

    /// Refuses a file that is read-only by its mode bits too: root may write anything, but a
    /// file someone made read-only is not one to rewrite behind their back.
    static func checkWritable(_ path: String, _ status: stat) throws(ISOBMFFError) {
        if path.withPathCString({ access($0, W_OK) }) != 0 {
            let code = errno
            throw ISOBMFFError(
                .io, code == EROFS ? "read-only file system" : "file is read-only (\(errnoReason(code)))")
        }
        if status.st_mode & 0o222 == 0 {
            throw ISOBMFFError(.io, "file is read-only (mode \(String(status.st_mode & 0o7777, radix: 8)))")
        }
    }

    static func checkFolderWritable(of path: String) throws(ISOBMFFError) {
        let folder = split(path).folder
        guard folder.withPathCString({ access($0, W_OK | X_OK) }) == 0 else {
            throw ISOBMFFError(.io, "cannot create a temporary file in '\(folder)': \(errnoReason())")
        }
    }

    static func checkOutput(_ given: String, input: stat) throws(ISOBMFFError) {
        let output = resolved(given)
        var existing = stat()
        if output.withPathCString({ stat($0, &existing) }) == 0 {
            if existing.st_mode & S_IFMT == S_IFDIR { throw ISOBMFFError(.io, "output '\(given)' is a directory") }
            // A device, FIFO or socket is never replaced by a renamed file (as root, `-o /dev/full`
            // would replace the device node). A fixed copy is verified by reading it back, which a
            // stream cannot be, so such an output is refused.
            if existing.st_mode & S_IFMT != S_IFREG {
                throw ISOBMFFError(.io, "output '\(given)' is not a regular file; fix writes only regular files")
            }
            if existing.st_dev == input.st_dev && existing.st_ino == input.st_ino {
                throw ISOBMFFError(.io, "output '\(given)' is the input itself; leave out -o to fix it in place")
            }
            do { try checkWritable(output, existing) } catch {
                throw ISOBMFFError(.io, "output '\(given)': \(error.reason)")
            }
        }
        try checkFolderWritable(of: output)
    }

    // MARK: Copy, patch, flush, check, rename

    static let partialSuffix = ".partial"

    /// `.NAME.vidorient-PID-RANDOM.partial`: hidden, and never mistaken for the fixed file.
    static func partialPrefix(for name: String) -> String {
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
    static func copy(from source: Int32, at inStart: Int64, to destination: Int32, at outStart: Int64, count: Int64)
        throws(ISOBMFFError)
    {
        var inOffset = inStart
        var outOffset = outStart
        let inEnd = inStart + count
        guard let copyFileRange else {
            try copyByReading(from: source, at: inOffset, to: destination, at: outOffset, count: count)
            return
        }
        while inOffset < inEnd {
            let chunk = Int(min(inEnd - inOffset, 1 << 30))
            let copied = copyFileRange(source, &inOffset, destination, &outOffset, chunk, 0)
            if copied > 0 { continue }
            if copied == 0 { throw ISOBMFFError(.io, "the file ended at \(inOffset) while it was being copied") }
            let code = errno
            if code == EINTR { continue }
            guard [EXDEV, ENOSYS, EINVAL, EOPNOTSUPP].contains(code) else {
                throw ISOBMFFError(.io, "could not copy the file: \(errnoReason(code))")
            }
            try copyByReading(from: source, at: inOffset, to: destination, at: outOffset, count: inEnd - inOffset)
            return
        }
    }

    private static func copyByReading(
        from source: Int32, at inStart: Int64, to destination: Int32, at outStart: Int64, count: Int64
    )
        throws(ISOBMFFError)
    {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var done: Int64 = 0
        while done < count {
            let wanted = Int(min(Int64(buffer.count), count - done))
            let got = buffer.withUnsafeMutableBytes { pread(source, $0.baseAddress!, wanted, off_t(inStart + done)) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else {
                throw ISOBMFFError(.io, got == 0 ? "the file ended while it was being copied" : errnoReason())
            }
            try write(Array(buffer[0..<got]), to: destination, at: outStart + done)
            done += Int64(got)
        }
    }

    static func write(_ bytes: [UInt8], to descriptor: Int32, at offset: Int64) throws(ISOBMFFError) {
        var done = 0
        while done < bytes.count {
            let result = bytes.withUnsafeBytes {
                pwrite(descriptor, $0.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            }
            if result < 0 {
                if errno == EINTR { continue }
                throw ISOBMFFError(.io, "could not write: \(errnoReason())")
            }
            done += result
        }
    }

    /// A rename is only durable once the folder holding it is flushed.
    static func synchronizeFolder(_ folder: String) throws(ISOBMFFError) {
        let descriptor = folder.withPathCString { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard descriptor >= 0 else {
            throw ISOBMFFError(.io, "could not open '\(folder)' to flush it: \(errnoReason())")
        }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw ISOBMFFError(.io, "could not flush '\(folder)': \(errnoReason())") }
    }

    /// Removes temporary files that a killed `fix` of the same file left behind: those whose
    /// process is gone. A live process's file is its own business.
    static func removeAbandonedPartials(in folder: String, name: String) {
        let prefix = partialPrefix(for: name).pathBytes, suffix = partialSuffix.pathBytes
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
