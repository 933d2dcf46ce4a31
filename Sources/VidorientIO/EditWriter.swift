public import VidorientCore

/// How a changed file reaches the disk, for every writer of a file the user named (a fix's
/// splices, normalize's whole new file). Each way re-reads what it wrote and checks it before it
/// reports success.
public enum FileWriteMode: Sendable, Hashable, Encodable {
    /// Stream the new file into a temporary file in the same folder, flush and check it, then
    /// rename it over the original and flush the folder. Killed at any moment, the path holds
    /// either the whole original or the whole new file.
    case replace
    /// Write only the changed bytes into the file itself and flush. Only for an edit that keeps
    /// the file's length; a crash can at worst leave some changed bytes old and some new.
    case inPlace
    /// Write the new file to this path (through a temporary file and a rename, as `.replace`),
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

    /// Its `name` (a copy's path is the result's `written_path`).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(name)
    }
}

/// A file's access and modification times, as `stat` gives them: what `--preserve-mtime` keeps.
public struct FileTimes: Sendable {
    var access: timespec
    var modification: timespec

    /// The times of the file `path` names (through symbolic links). Take them before the first
    /// read of the file: reading may move the access time.
    public init(path: String) throws(VidorientError) {
        guard let status = System.status(path) else { throw System.error() }
        access = status.st_atim
        modification = status.st_mtim
    }

    /// Sets them on an open file.
    func restore(descriptor: Int32) throws(VidorientError) {
        let times = [access, modification]
        try System.call("could not keep the modification time") { futimens(descriptor, times) }
    }

    /// Sets them on the file `path` names.
    func restore(path: String) throws(VidorientError) {
        let times = [access, modification]
        try System.call("could not keep the modification time") {
            path.withPathCString { utimensat(AT_FDCWD, $0, times, 0) }
        }
    }
}

/// The one writer of a file the user named: it takes a `Change` (a fix's splices against the file
/// as it is now, or normalize's whole new file) and puts it on the disk safely.
///
/// `write(_:path:mode:preservingTimes:lock:verify:)`:
/// 1. Checks before anything is written: the file is readable and writable (by its mode bits too);
///    for `.replace` it has one link (a replacement would split hard links: use `.inPlace`) and its
///    folder takes a temporary file; for `.copy` the output is a regular file or absent, not the
///    input, and its folder is writable; for `.inPlace` the edit keeps the length (a whole new file
///    is never written in place). Each splice's `old` bytes must be in the file where the edit
///    expects them: a file changed since it was planned is refused, untouched.
/// 2. `.inPlace`: `pwrite`s each splice's new bytes, starts the disk writing them, calls
///    `verify(path)`, then `fsync`s (nothing is reported written before the flush); if `verify`
///    or the flush throws, puts the old bytes back, flushed, and rethrows (and says so when that
///    too fails).
///    `.replace` and `.copy(to:)`: streams the new file into `.NAME.vidorient-PID-RANDOM.partial`
///    beside the destination (for splices, `copy_file_range` between them, so unchanged data can
///    be shared by the file system), with the original's permissions (and owner, as root), starts
///    the disk writing it, calls `verify(temporary)`, `fsync`s, checks that the original did not
///    change meanwhile
///    (`.replace`), renames it over the destination, `fsync`s the folder and calls
///    `verify(destination)`. Temporary files of killed runs (whose process is gone) are removed first.
/// 3. With `preservingTimes` (exiftool's `-P`; take them with `FileTimes(path:)` before the
///    first read of the file, since reading may move the access time), the written file gets
///    those access and modification times, before the rename and again after the last read-back.
///
/// `lock` is the `FileLock` the caller took on `path` for its read, plan, write and check (a
/// replacement's new file is locked too before it takes the name); nil when the caller holds none.
/// `verify` reads the written file back and throws when it does not show what was planned; its
/// reason becomes `the written file does not read back: …`, its kind is kept.
///
/// Symbolic links are followed: the file the link names is written, the link stays a link.
public enum EditWriter {
    /// One run of the new file: bytes from memory, or a run of the file being replaced (copied by
    /// the kernel, never read into memory).
    public enum Piece: Sendable, Hashable {
        case bytes(ArraySlice<UInt8>)
        case original(Range<Int64>)

        public var count: Int64 {
            switch self {
            case .bytes(let bytes): Int64(bytes.count)
            case .original(let range): Int64(range.count)
            }
        }
    }

    /// What is written.
    public enum Change: Sendable, Hashable {
        /// Splices against the file as it is now (every fix); empty writes nothing, except a copy.
        case edit(FileEdit)
        /// A whole new file in place of the original (normalize), in pieces written one after
        /// another (so that they need not be copied into one); never in place.
        case contents([Piece])

        var isEdit: Bool {
            if case .edit = self { return true }
            return false
        }
    }

    /// What was written.
    public struct Outcome: Sendable, Hashable {
        /// The path written (the input, or the `.copy` output); nil when nothing was written
        /// (an empty edit with `.replace` or `.inPlace`).
        public var writtenPath: String?
        /// Bytes this run wrote to the disk: the whole file for a replacement or copy, the
        /// changed bytes for in-place.
        public var bytesWritten: Int64
    }

    /// The checks of step 1 that need no change: that `path` can be written in `mode`. Callers
    /// that plan a dry run use it to refuse what a real run would refuse.
    public static func checkWritable(path: String, mode: FileWriteMode) throws(VidorientError) {
        let input = try FileBytes(path: path)
        try check(path: path, status: try input.status(), mode: mode, inPlaceAvailable: true)
    }

    /// Writes a fix's splices (`write(.edit(edit), …)`).
    public static func write(
        _ edit: FileEdit, path: String, mode: FileWriteMode, preservingTimes: FileTimes? = nil,
        lock: FileLock? = nil, verify: (String) throws -> Void
    ) throws(VidorientError) -> Outcome {
        try write(.edit(edit), path: path, mode: mode, preservingTimes: preservingTimes, lock: lock, verify: verify)
    }

    public static func write(
        _ change: Change, path: String, mode: FileWriteMode, preservingTimes times: FileTimes? = nil,
        lock: FileLock? = nil, verify: (String) throws -> Void
    ) throws(VidorientError) -> Outcome {
        let input = try FileBytes(path: path)
        let status = try input.status()
        let edit: FileEdit
        switch change {
        case .edit(let splices): edit = splices
        case .contents: edit = .none
        }
        try check(path: path, status: status, mode: mode, inPlaceAvailable: change.isEdit)
        // Setting a file's times takes its owner (or root): refused before anything is written.
        if times != nil, case .inPlace = mode, geteuid() != 0, status.st_uid != geteuid() {
            throw .io("cannot keep the times of a file owned by another user; leave out --preserve-mtime")
        }
        if case .inPlace = mode {
            guard case .edit = change else { throw .unsupported("a whole new file cannot be written in place") }
            guard edit.keepsLength else {
                throw .unsupported(
                    "this fix inserts \(edit.sizeChange) bytes, which cannot be written in place; leave out --in-place")
            }
        }
        for splice in edit.splices {
            guard splice.offset + Int64(splice.old.count) <= input.size,
                try input.read(at: splice.offset, count: splice.old.count) == splice.old
            else { throw .io("the file changed since the fix was planned; it was left as it is") }
        }
        let check: (String) throws(VidorientError) -> Void = { written throws(VidorientError) in
            do { try verify(written) } catch let error as VidorientError {
                throw error.context("the written file does not read back")
            } catch {
                throw .io("the written file does not read back: \(error)")
            }
        }
        switch (mode, change) {
        case (.inPlace, _):
            guard !edit.isEmpty else { return Outcome(writtenPath: nil, bytesWritten: 0) }
            let written = try patchInPlace(path, status: status, edit: edit, times: times, verify: check)
            return Outcome(writtenPath: path, bytesWritten: written)
        case (.replace, .edit) where edit.isEmpty:
            return Outcome(writtenPath: nil, bytesWritten: 0)
        case (.replace, _), (.copy, _):
            let destination: String
            if case .copy(let output) = mode { destination = output } else { destination = path }
            // A copy's output through a link is written onto its target, even one not made yet.
            let target = mode == .replace ? SafeWrite.resolved(path) : try SafeWrite.outputFile(destination)
            let written = try writeCopy(
                of: input, status: status, change: change, to: target,
                replacing: mode == .replace, lock: lock, times: times, verify: check)
            return Outcome(writtenPath: destination, bytesWritten: written)
        }
    }

    package static func check(path: String, status: stat, mode: FileWriteMode, inPlaceAvailable: Bool)
        throws(VidorientError)
    {
        switch mode {
        case .replace:
            try SafeWrite.checkWritable(path, status)
            // A replacement is a new file: other names of the old one would keep the old content.
            guard status.st_nlink <= 1 else {
                throw .unsupported(
                    "the file has \(status.st_nlink) hard links, which a replacement would split"
                        + (inPlaceAvailable ? "; use --in-place" : ""))
            }
            try SafeWrite.checkFolderWritable(of: SafeWrite.resolved(path))
        case .inPlace:
            try SafeWrite.checkWritable(path, status)
        case .copy(let output):
            try SafeWrite.checkOutput(output, input: status)
        }
    }

    static func patchInPlace(
        _ path: String, status: stat, edit: FileEdit, times: FileTimes?,
        verify: (String) throws(VidorientError) -> Void
    ) throws(VidorientError) -> Int64 {
        let file = try FileBytes(path: path, writable: true)
        let now = try file.status()
        let changed = VidorientError.io("the file changed while it was being fixed; it was left as it is")
        guard now.st_dev == status.st_dev, now.st_ino == status.st_ino, now.st_size == status.st_size else {
            throw changed
        }
        for splice in edit.splices {
            guard try file.read(at: splice.offset, count: splice.old.count) == splice.old else { throw changed }
        }
        var written: Int64 = 0
        for splice in edit.splices {
            try file.write(splice.new, at: splice.offset)
            written += Int64(splice.new.count)
        }
        try times?.restore(descriptor: file.descriptor)
        // The disk writes the changed pages while they are read back; the flush then waits for
        // less, and nothing is reported written before it.
        SafeWrite.startWriteback(file.descriptor)
        do {
            try verify(path)
            try file.synchronize()
        } catch {
            // Put the old bytes back. Should that fail too, the file may hold some of each: say so.
            do throws(VidorientError) {
                for splice in edit.splices { try file.write(splice.old, at: splice.offset) }
                try times?.restore(descriptor: file.descriptor)
                try file.synchronize()
            } catch let rollback {
                throw error.context(
                    "the old bytes could not be put back (\(rollback.reason)), so the file may hold some old and "
                        + "some new bytes; the check said")
            }
            throw error
        }
        // Reading it back may have moved the access time.
        try times?.restore(descriptor: file.descriptor)
        return written
    }

    /// Streams the new file (`input` with the edit applied, or the new contents) into a temporary
    /// file beside `destination`, flushes and checks it, then renames it to `destination` and
    /// flushes the folder. Returns the bytes written. With `replacing`, also checks that the
    /// original did not change meanwhile.
    static func writeCopy(
        of input: FileBytes, status: stat, change: Change, to destination: String, replacing: Bool,
        lock: FileLock?, times: FileTimes?, verify: (String) throws(VidorientError) -> Void
    ) throws(VidorientError) -> Int64 {
        let pending = try PendingFile(for: destination)
        let (temporary, descriptor) = (pending.path, pending.descriptor)
        let written = try write(pieces(of: change, size: input.size), from: input, to: descriptor)
        // The original's permissions; its owner too when we may set it (as root).
        try System.call { fchmod(descriptor, status.st_mode & 0o7777) }
        if geteuid() == 0 { _ = fchown(descriptor, status.st_uid, status.st_gid) }
        try times?.restore(descriptor: descriptor)
        // The disk writes while the copy is read back; the rename waits for the flush.
        SafeWrite.startWriteback(descriptor)
        try verify(temporary)
        try pending.flush("the copy")
        // The copy is locked before it takes the file's place, so that the lock goes with the name.
        if let lock { lock.adopt(pending.handOver()) } else { pending.closeFile() }

        // Someone else wrote the file while it was copied: keep theirs.
        if replacing && !SafeWrite.isUnchanged(destination, since: status) {
            throw .io(
                "the file changed while it was being \(change.isEdit ? "fixed" : "rewritten"); it was left as it is")
        }
        try pending.commit(change.isEdit ? "the fixed copy" : "the new file")
        try verify(destination)
        // Reading it back may have moved the access time.
        try times?.restore(path: destination)
        return written
    }

    /// The new file as pieces: the runs an edit leaves alone and each splice's new bytes between them.
    static func pieces(of change: Change, size: Int64) -> [Piece] {
        switch change {
        case .contents(let pieces): return pieces
        case .edit(let edit):
            var pieces: [Piece] = []
            var position: Int64 = 0
            for splice in edit.splices {
                pieces += [.original(position..<splice.offset), .bytes(splice.new[...])]
                position = splice.offset + Int64(splice.old.count)
            }
            return pieces + [.original(position..<size)]
        }
    }

    /// Writes `pieces` into `descriptor` from its start; runs of the original are copied from
    /// `input` by the kernel. Returns the bytes written.
    static func write(_ pieces: [Piece], from input: FileBytes, to descriptor: Int32) throws(VidorientError) -> Int64 {
        var offset: Int64 = 0
        for piece in pieces {
            switch piece {
            case .bytes(let bytes):
                try bytes.withUnsafeBytes { raw in
                    Result { () throws(VidorientError) in try System.write(descriptor, raw, at: offset) }
                }.get()
            case .original(let range):
                guard range.upperBound <= input.size else {
                    throw .io("the file ended at \(input.size) while it was being copied")
                }
                try SafeWrite.copy(
                    from: input.descriptor, at: range.lowerBound, to: descriptor, at: offset, count: Int64(range.count))
            }
            offset += piece.count
        }
        return offset
    }
}
