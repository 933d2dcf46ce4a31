public import VidorientCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// How a fixed file reaches the disk, for every fix (video matrices and photo tags alike). Each
/// way re-reads what it wrote and checks it before it reports success.
public enum FileWriteMode: Sendable, Hashable {
    /// Stream the file with the edit applied into a temporary file in the same folder, flush and
    /// check it, then rename it over the original and flush the folder. Killed at any moment, the
    /// path holds either the whole original or the whole fixed file.
    case replace
    /// Write only the changed bytes into the file itself and flush. Only for an edit that keeps
    /// the file's length; a crash can at worst leave some changed bytes old and some new.
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

extension MatrixFix {
    /// The video fix's name for `FileWriteMode` (one writer writes every fix).
    public typealias WriteMode = FileWriteMode
}

/// A file's access and modification times, as `stat` gives them: what `--preserve-mtime` keeps.
public struct FileTimes: Sendable {
    var access: timespec
    var modification: timespec

    /// The times of the file `path` names (through symbolic links).
    public init(path: String) throws(ISOBMFFError) {
        var status = stat()
        guard path.withPathCString({ stat($0, &status) }) == 0 else { throw ISOBMFFError(.io, SafeWrite.errnoReason()) }
        access = status.st_atim
        modification = status.st_mtim
    }
}

/// The one writer of every fix: it takes a `FileEdit` (splices against the file as it is now) and
/// puts it on the disk safely.
///
/// `write(_:path:mode:preservingTimes:lock:verify:)`:
/// 1. Checks before anything is written: the file is readable and writable (by its mode bits too);
///    for `.replace` it has one link (a replacement would split hard links: use `.inPlace`) and its
///    folder takes a temporary file; for `.copy` the output is a regular file or absent, not the
///    input, and its folder is writable; for `.inPlace` the edit keeps the length. Each splice's
///    `old` bytes must be in the file where the edit expects them: a file changed since it was
///    planned is refused, untouched.
/// 2. `.inPlace`: `pwrite`s each splice's new bytes, `fsync`s, calls `verify(path)`; if `verify`
///    throws, puts the old bytes back and rethrows.
///    `.replace` and `.copy(to:)`: streams the file into `.NAME.vidorient-PID-RANDOM.partial` beside
///    the destination (`copy_file_range` between splices, so unchanged data can be shared by the
///    file system), with the original's permissions (and owner, as root), `fsync`s, calls
///    `verify(temporary)`, checks that the original did not change meanwhile (`.replace`),
///    renames it over the destination, `fsync`s the folder and calls `verify(destination)`.
///    Temporary files of killed runs (whose process is gone) are removed first.
/// 3. With `preservingTimes` (exiftool's `-P`; take them with `FileTimes(path:)` before the
///    first read of the file, since reading may move the access time), the written file gets
///    those access and modification times, before the rename and again at the end.
///
/// `lock` is the `FileLock` the caller took on `path` for its read, plan, write and check (a
/// replacement's new file is locked too before it takes the name); nil when the caller holds none.
/// `verify` reads the written file back and throws when it does not show what was planned; its
/// error's description becomes the reason (`the written file does not read back: …`).
///
/// Symbolic links are followed: the file the link names is fixed, the link stays a link.
public enum EditWriter {
    /// What was written.
    public struct Outcome: Sendable, Hashable {
        /// The path written (the input, or the `.copy` output); nil when nothing was written
        /// (an empty edit with `.replace` or `.inPlace`).
        public var writtenPath: String?
        /// Bytes this run wrote to the disk: the whole file for a replacement or copy, the
        /// changed bytes for in-place.
        public var bytesWritten: Int64
    }

    /// The checks of step 1 that need no edit: that `path` can be written in `mode`. Callers
    /// that plan a dry run use it to refuse what a real run would refuse.
    public static func checkWritable(path: String, mode: FileWriteMode) throws(ISOBMFFError) {
        let input = try FileBytes(path: path)
        try check(path: path, status: try input.status(), mode: mode)
    }

    public static func write(
        _ edit: FileEdit, path: String, mode: FileWriteMode, preservingTimes: FileTimes? = nil,
        lock: FileLock? = nil, verify: (String) throws -> Void
    ) throws(ISOBMFFError) -> Outcome {
        let input = try FileBytes(path: path)
        let status = try input.status()
        try check(path: path, status: status, mode: mode)
        if case .inPlace = mode, !edit.keepsLength {
            throw .unsupported(
                "this fix inserts \(edit.sizeChange) bytes, which cannot be written in place; leave out --in-place")
        }
        for splice in edit.splices {
            guard splice.offset + Int64(splice.old.count) <= input.size,
                try input.read(at: splice.offset, count: splice.old.count) == splice.old
            else { throw ISOBMFFError(.io, "the file changed since the fix was planned; it was left as it is") }
        }
        let times = preservingTimes.map { [$0.access, $0.modification] }
        let check: (String) throws(ISOBMFFError) -> Void = { written throws(ISOBMFFError) in
            do { try verify(written) } catch let error as ISOBMFFError {
                throw ISOBMFFError(.io, "the written file does not read back: \(error.reason)")
            } catch {
                throw ISOBMFFError(.io, "the written file does not read back: \(error)")
            }
        }
        switch mode {
        case .inPlace:
            guard !edit.isEmpty else { return Outcome(writtenPath: nil, bytesWritten: 0) }
            let written = try patchInPlace(path, status: status, edit: edit, times: times, verify: check)
            return Outcome(writtenPath: path, bytesWritten: written)
        case .replace:
            guard !edit.isEmpty else { return Outcome(writtenPath: nil, bytesWritten: 0) }
            let written = try writeCopy(
                of: input, status: status, edit: edit, to: SafeWrite.resolved(path), replacing: true, lock: lock,
                times: times,
                verify: check)
            return Outcome(writtenPath: path, bytesWritten: written)
        case .copy(let output):
            let written = try writeCopy(
                of: input, status: status, edit: edit, to: SafeWrite.resolved(output), replacing: false, lock: lock,
                times: times, verify: check)
            return Outcome(writtenPath: output, bytesWritten: written)
        }
    }

    static func check(path: String, status: stat, mode: FileWriteMode) throws(ISOBMFFError) {
        switch mode {
        case .replace:
            try SafeWrite.checkWritable(path, status)
            // A replacement is a new file: other names of the old one would keep the old content.
            guard status.st_nlink <= 1 else {
                throw .unsupported(
                    "the file has \(status.st_nlink) hard links, which a replacement would split; use --in-place")
            }
            try SafeWrite.checkFolderWritable(of: SafeWrite.resolved(path))
        case .inPlace:
            try SafeWrite.checkWritable(path, status)
        case .copy(let output):
            try SafeWrite.checkOutput(output, input: status)
        }
    }

    /// Sets a file's access and modification times (`times` as `stat` gave them).
    static func restoreTimes(_ times: [timespec], descriptor: Int32? = nil, path: String? = nil) {
        times.withUnsafeBufferPointer { pointer in
            if let descriptor {
                _ = futimens(descriptor, pointer.baseAddress)
            } else if let path {
                _ = path.withPathCString { utimensat(AT_FDCWD, $0, pointer.baseAddress, 0) }
            }
        }
    }

    static func patchInPlace(
        _ path: String, status: stat, edit: FileEdit, times: [timespec]?, verify: (String) throws(ISOBMFFError) -> Void
    ) throws(ISOBMFFError) -> Int64 {
        let file = try FileBytes(path: path, writable: true)
        let now = try file.status()
        guard now.st_dev == status.st_dev, now.st_ino == status.st_ino, now.st_size == status.st_size else {
            throw ISOBMFFError(.io, "the file changed while it was being fixed; it was left as it is")
        }
        for splice in edit.splices {
            guard try file.read(at: splice.offset, count: splice.old.count) == splice.old else {
                throw ISOBMFFError(.io, "the file changed while it was being fixed; it was left as it is")
            }
        }
        var written: Int64 = 0
        for splice in edit.splices {
            try file.write(splice.new, at: splice.offset)
            written += Int64(splice.new.count)
        }
        if let times { restoreTimes(times, descriptor: file.descriptor) }
        try file.synchronize()
        do {
            try verify(path)
        } catch {
            for splice in edit.splices { try? file.write(splice.old, at: splice.offset) }
            if let times { restoreTimes(times, descriptor: file.descriptor) }
            try? file.synchronize()
            throw error
        }
        // Reading it back may have moved the access time.
        if let times { restoreTimes(times, descriptor: file.descriptor) }
        return written
    }

    /// Streams `input` with `edit` applied into a temporary file beside `destination`, flushes and
    /// checks it, then renames it to `destination` and flushes the folder. Returns the bytes
    /// written. With `replacing`, also checks that the original did not change meanwhile.
    static func writeCopy(
        of input: FileBytes, status: stat, edit: FileEdit, to destination: String, replacing: Bool, lock: FileLock?,
        times: [timespec]?, verify: (String) throws(ISOBMFFError) -> Void
    ) throws(ISOBMFFError) -> Int64 {
        let (folder, temporary, descriptor) = try SafeWrite.createTemporary(for: destination)
        var renamed = false
        var descriptorOpen = true
        defer {
            if descriptorOpen { close(descriptor) }
            if !renamed { _ = temporary.withPathCString { unlink($0) } }
        }
        var inPosition: Int64 = 0
        var outPosition: Int64 = 0
        for splice in edit.splices {
            let unchanged = splice.offset - inPosition
            try SafeWrite.copy(
                from: input.descriptor, at: inPosition, to: descriptor, at: outPosition, count: unchanged)
            outPosition += unchanged
            try SafeWrite.write(splice.new, to: descriptor, at: outPosition)
            outPosition += Int64(splice.new.count)
            inPosition = splice.offset + Int64(splice.old.count)
        }
        try SafeWrite.copy(
            from: input.descriptor, at: inPosition, to: descriptor, at: outPosition, count: input.size - inPosition)
        outPosition += input.size - inPosition
        // The original's permissions; its owner too when we may set it (as root).
        guard fchmod(descriptor, status.st_mode & 0o7777) == 0 else { throw ISOBMFFError(.io, SafeWrite.errnoReason()) }
        if geteuid() == 0 { _ = fchown(descriptor, status.st_uid, status.st_gid) }
        if let times { restoreTimes(times, descriptor: descriptor) }
        guard fsync(descriptor) == 0 else {
            throw ISOBMFFError(.io, "could not flush the copy: \(SafeWrite.errnoReason())")
        }
        // The copy is locked before it takes the file's place, so that the lock goes with the name.
        if let lock { lock.adopt(descriptor) } else { close(descriptor) }
        descriptorOpen = false

        try verify(temporary)
        // Someone else wrote the file while it was copied: keep theirs.
        if replacing && !SafeWrite.isUnchanged(destination, since: status) {
            throw ISOBMFFError(.io, "the file changed while it was being fixed; it was left as it is")
        }
        try SafeWrite.moveIntoPlace(temporary, over: destination, folder: folder, what: "the fixed copy")
        renamed = true
        try verify(destination)
        if let times { restoreTimes(times, path: destination) }
        return outPosition
    }
}
