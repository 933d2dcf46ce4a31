#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension MatrixFix {
    /// How the fixed file reaches the disk. Each way re-reads what it wrote and checks it against
    /// the plan before it reports success.
    public enum WriteMode: Sendable, Hashable {
        /// Copy the file to a temporary file in the same folder, patch and flush the copy, check
        /// it, then rename it over the original and flush the folder. Killed at any moment, the
        /// path holds either the whole original or the whole fixed file.
        case replace
        /// Write only the changed bytes into the file itself and flush. Nothing but the matrices
        /// is written; a crash can at worst leave some matrices old and some new.
        case inPlace
        /// Write a fixed copy to this path (through a temporary file and a rename, as `.replace`),
        /// leaving the original alone.
        case copy(to: String)

        /// As in the JSON: `replace`, `in_place` or `copy`.
        public var name: String {
            switch self {
            case .replace: "replace"
            case .inPlace: "in_place"
            case .copy: "copy"
            }
        }
    }

    /// Reads the file at `path`, plans the change and writes it in `mode`, unless `dryRun`.
    /// Refuses, having changed nothing, what cannot be read, planned (see `init`) or written: a
    /// read-only file, a folder where no temporary file can be made, an unusable `-o` path.
    /// A file already as asked is left untouched (except that a copy is still written).
    ///
    /// Unless `dryRun`, the file is locked (`FileLock`) for the whole run; a caller that checks
    /// the result under the lock takes it itself and passes it as `lock`.
    public static func fix(
        path: String, change: OrientationChange, resetMovieMatrix: Bool = false, mode: WriteMode = .replace,
        dryRun: Bool = false, lock: FileLock? = nil
    ) throws(ISOBMFFError) -> FixResult {
        var held = lock
        if !dryRun && held == nil { held = try FileLock(path: path) }
        defer { withExtendedLifetime(held) {} }
        let input = try FileBytes(path: path)
        let movie = try MovieStructure(input)
        let plan = try MatrixFix(movie, change: change, resetMovieMatrix: resetMovieMatrix)
        let status = try input.status()
        switch mode {
        case .replace:
            try FileSystem.checkWritable(path, status)
            // A replacement is a new file: other names of the old one would keep the old content.
            guard status.st_nlink <= 1 else {
                throw .unsupported("the file has \(status.st_nlink) hard links, which a replacement would split; use --in-place")
            }
            try FileSystem.checkFolderWritable(of: FileSystem.resolved(path))
        case .inPlace:
            try FileSystem.checkWritable(path, status)
        case .copy(let output):
            try FileSystem.checkOutput(output, input: status)
        }

        var result = FixResult(path: path, plan: plan, movie: movie, mode: mode, dryRun: dryRun)
        guard !dryRun else { return result }
        let expected = plan.expectedStructure(from: movie)
        switch mode {
        case .replace:
            guard plan.bytesChanged > 0 else { return result }
            // Through a symbolic link to the file it names: the link itself stays a link.
            result.bytesWritten = try FileSystem.writeFixedCopy(
                of: input, status: status, plan: plan, expected: expected, to: FileSystem.resolved(path), replacing: true,
                lock: held)
            result.writtenPath = path
        case .copy(let output):
            result.bytesWritten = try FileSystem.writeFixedCopy(
                of: input, status: status, plan: plan, expected: expected, to: FileSystem.resolved(output), replacing: false,
                lock: held)
            result.writtenPath = output
        case .inPlace:
            guard plan.bytesChanged > 0 else { return result }
            result.bytesWritten = try FileSystem.patchInPlace(path, status: status, plan: plan, expected: expected)
            result.writtenPath = path
        }
        result.verified = true
        return result
    }
}

/// The file-system steps of `fix`, each one refusing cleanly rather than leaving a half-done job.
enum FileSystem {
    static func errnoReason(_ code: Int32 = errno) -> String { String(cString: strerror(code)).lowercased() }

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
            throw ISOBMFFError(.io, code == EROFS ? "read-only file system" : "file is read-only (\(errnoReason(code)))")
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

    /// Copies `input` to a temporary file beside `destination`, patches and flushes it, checks
    /// it, then renames it to `destination` and flushes the folder. Returns the bytes written.
    /// With `replacing`, also checks that the original did not change meanwhile.
    static func writeFixedCopy(
        of input: FileBytes, status: stat, plan: MatrixFix, expected: MovieStructure, to destination: String,
        replacing: Bool, lock: FileLock? = nil
    ) throws(ISOBMFFError) -> Int64 {
        let (folder, name) = split(destination)
        removeAbandonedPartials(in: folder, name: name)
        let random = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let temporary = folder + "/" + partialPrefix(for: name) + "\(getpid())-\(random)" + partialSuffix
        let descriptor = temporary.withPathCString { open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
        guard descriptor >= 0 else {
            throw ISOBMFFError(.io, "cannot create a temporary file in '\(folder)': \(errnoReason())")
        }
        var renamed = false
        var descriptorOpen = true
        defer {
            if descriptorOpen { close(descriptor) }
            if !renamed { _ = temporary.withPathCString { unlink($0) } }
        }
        try copy(from: input.descriptor, to: descriptor, count: input.size)
        for patch in plan.patches where patch.changedByteCount > 0 {
            try write(patch.after.bytes, to: descriptor, at: patch.after.offset)
        }
        // The original's permissions; its owner too when we may set it (as root).
        guard fchmod(descriptor, status.st_mode & 0o7777) == 0 else { throw ISOBMFFError(.io, errnoReason()) }
        if geteuid() == 0 { _ = fchown(descriptor, status.st_uid, status.st_gid) }
        guard fsync(descriptor) == 0 else { throw ISOBMFFError(.io, "could not flush the copy: \(errnoReason())") }
        // The copy is locked before it takes the file's place, so that the lock goes with the name.
        if let lock { lock.adopt(descriptor) } else { close(descriptor) }
        descriptorOpen = false

        try verify(temporary, expected: expected)
        if replacing {
            // Someone else wrote the file while it was copied: keep theirs.
            var now = stat()
            guard destination.withPathCString({ stat($0, &now) }) == 0, now.st_dev == status.st_dev, now.st_ino == status.st_ino,
                now.st_size == status.st_size, now.st_mtim.tv_sec == status.st_mtim.tv_sec,
                now.st_mtim.tv_nsec == status.st_mtim.tv_nsec
            else { throw ISOBMFFError(.io, "the file changed while it was being fixed; it was left as it is") }
        }
        guard temporary.withPathCString({ from in destination.withPathCString { rename(from, $0) } }) == 0 else {
            throw ISOBMFFError(.io, "could not rename the fixed copy into place: \(errnoReason())")
        }
        renamed = true
        try synchronizeFolder(folder)
        try verify(destination, expected: expected)
        return input.size
    }

    private typealias CopyFileRange = @convention(c) (
        Int32, UnsafeMutablePointer<Int64>?, Int32, UnsafeMutablePointer<Int64>?, Int, UInt32
    ) -> Int

    /// glibc's `copy_file_range`, looked up at run time: Swift's Glibc module leaves out the
    /// GNU extensions it is declared among. nil where the C library lacks it.
    private static let copyFileRange: CopyFileRange? = dlsym(nil, "copy_file_range").map {
        unsafeBitCast($0, to: CopyFileRange.self)
    }

    /// Copies with `copy_file_range`, which lets the kernel (or the file system, by sharing
    /// blocks on Btrfs or XFS) do the work; falls back to read and write where it cannot.
    static func copy(from source: Int32, to destination: Int32, count: Int64) throws(ISOBMFFError) {
        guard let copyFileRange else {
            try copyByReading(from: source, to: destination, from: 0, count: count)
            return
        }
        var inOffset: Int64 = 0
        var outOffset: Int64 = 0
        while inOffset < count {
            let chunk = Int(min(count - inOffset, 1 << 30))
            let copied = copyFileRange(source, &inOffset, destination, &outOffset, chunk, 0)
            if copied > 0 { continue }
            if copied == 0 { throw ISOBMFFError(.io, "the file ended at \(inOffset) while it was being copied") }
            let code = errno
            if code == EINTR { continue }
            guard [EXDEV, ENOSYS, EINVAL, EOPNOTSUPP].contains(code) else {
                throw ISOBMFFError(.io, "could not copy the file: \(errnoReason(code))")
            }
            try copyByReading(from: source, to: destination, from: inOffset, count: count)
            return
        }
    }

    private static func copyByReading(from source: Int32, to destination: Int32, from start: Int64, count: Int64)
        throws(ISOBMFFError)
    {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset = start
        while offset < count {
            let wanted = Int(min(Int64(buffer.count), count - offset))
            let got = buffer.withUnsafeMutableBytes { pread(source, $0.baseAddress!, wanted, off_t(offset)) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else {
                throw ISOBMFFError(.io, got == 0 ? "the file ended while it was being copied" : errnoReason())
            }
            try write(Array(buffer[0..<got]), to: destination, at: offset)
            offset += Int64(got)
        }
    }

    static func write(_ bytes: [UInt8], to descriptor: Int32, at offset: Int64) throws(ISOBMFFError) {
        var done = 0
        while done < bytes.count {
            let result = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done)) }
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
        guard descriptor >= 0 else { throw ISOBMFFError(.io, "could not open '\(folder)' to flush it: \(errnoReason())") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw ISOBMFFError(.io, "could not flush '\(folder)': \(errnoReason())") }
    }

    /// Reads `path` back: its structure must be exactly the planned one, new matrices included.
    static func verify(_ path: String, expected: MovieStructure) throws(ISOBMFFError) {
        let actual: MovieStructure
        do { actual = try MovieStructure(path: path) } catch {
            throw ISOBMFFError(.io, "the written file does not read back: \(error.reason)")
        }
        guard actual == expected else {
            throw ISOBMFFError(.io, "the written file does not read back as planned")
        }
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

    // MARK: In place

    /// Writes each changed matrix into the file itself, flushes, and reads it back; on a failed
    /// check it puts the old bytes back. Returns the bytes written.
    static func patchInPlace(_ path: String, status: stat, plan: MatrixFix, expected: MovieStructure)
        throws(ISOBMFFError) -> Int64
    {
        let file = try FileBytes(path: path, writable: true)
        let now = try file.status()
        guard now.st_dev == status.st_dev, now.st_ino == status.st_ino, now.st_size == status.st_size else {
            throw ISOBMFFError(.io, "the file changed while it was being fixed; it was left as it is")
        }
        let changed = plan.patches.filter { $0.changedByteCount > 0 }
        for patch in changed {
            guard try file.read(at: patch.before.offset, count: StoredMatrix.byteCount) == patch.before.bytes else {
                throw ISOBMFFError(.io, "the file changed while it was being fixed; it was left as it is")
            }
        }
        var written: Int64 = 0
        for patch in changed {
            try file.write(patch.after.bytes, at: patch.after.offset)
            written += Int64(StoredMatrix.byteCount)
        }
        try file.synchronize()
        do {
            try verify(path, expected: expected)
        } catch {
            for patch in changed { try? file.write(patch.before.bytes, at: patch.before.offset) }
            try? file.synchronize()
            throw error
        }
        return written
    }
}
