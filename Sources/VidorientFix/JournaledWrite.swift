public import Vidorient
public import VidorientCore
import VidorientIO

/// What one fix is about to write, as the journal records it.
public struct PlannedWrite: Sendable, Hashable {
    public var path: String
    /// `MediaFormat`'s name.
    public var format: String
    /// `in_place` or `replace`.
    public var mode: String
    public var orientationBefore: Orientation?
    public var orientationAfter: Orientation?
    /// Against the file as it is now; not empty.
    public var edit: FileEdit

    public init(
        path: String, format: String, mode: String, orientationBefore: Orientation?, orientationAfter: Orientation?,
        edit: FileEdit
    ) {
        self.path = path
        self.format = format
        self.mode = mode
        self.orientationBefore = orientationBefore
        self.orientationAfter = orientationAfter
        self.edit = edit
    }
}

extension JournalFile {
    /// Journals one fix around its write: reads the file once for the checksums before and after
    /// (`EditChecksums`), records `writing` (flushed), runs `write`, which must write exactly
    /// `planned.edit` to `planned.path` and check it, then records `written` with the new mtime,
    /// or `not_written` with the reason when `write` throws and the file is still the original. The caller holds the file's lock
    /// from before its plan until this returns, so the file cannot change in between.
    public func record<Result>(_ planned: PlannedWrite, write: () throws(VidorientError) -> Result)
        throws(VidorientError) -> Result
    {
        let sums = try EditChecksums(path: planned.path, edit: planned.edit)
        guard sums.holdsOldBytes else {
            throw .io("the file changed while the fix was planned; it was left as it is")
        }
        guard let status = fileStatus(planned.path) else {
            throw .io("the file disappeared while the fix was planned")
        }
        let entry = JournalEntry(
            status: .writing, id: nextID(), path: planned.path, target: SafeWrite.resolved(planned.path),
            format: planned.format, mode: planned.mode,
            orientationBefore: planned.orientationBefore?.exif, orientationAfter: planned.orientationAfter?.exif,
            before: FileState(size: sums.size, mtimeNanoseconds: status.mtimeNanoseconds, crc32: sums.current),
            after: FileState(size: sums.size + planned.edit.sizeChange, mtimeNanoseconds: nil, crc32: sums.edited),
            edit: planned.edit)
        return try journaled(entry, write: write)
    }

    /// Where `normalize` keeps a copy of each file it replaces: a folder beside the journal
    /// (`JOURNAL.originals`), made when first needed. Undo writes a copy back; the copies stay
    /// until the folder is deleted.
    public var originalsFolder: String { path + ".originals" }

    /// Journals one `normalize` around its write, which replaces the whole file (the plan's
    /// `contents`), so that no splice could take it back: first keeps a copy of the file as it is
    /// in `originalsFolder` (flushed, and read back against the file's CRC-32), then, as a fix's
    /// `record`, the `writing` line (the copy's path, the new file's size and CRC-32), `write`,
    /// and `written`; or `not_written`, and the copy deleted, when the file is still the original.
    /// The caller holds the file's lock from before its plan until this returns.
    public func record<Result>(_ plan: NormalizePlan, write: () throws(VidorientError) -> Result)
        throws(VidorientError) -> Result
    {
        let (path, contents) = (plan.path, plan.contents)
        let sums = try EditChecksums(path: path, edit: .none)
        guard let status = fileStatus(path), status.size == sums.size else {
            throw .io("the file changed while it was planned; it was left as it is")
        }
        let after = FileState(
            size: contents.reduce(0) { $0 + $1.count }, mtimeNanoseconds: nil,
            crc32: try EditChecksums.contentsCRC(contents, original: path))
        let id = nextID()
        let before = FileState(size: sums.size, mtimeNanoseconds: status.mtimeNanoseconds, crc32: sums.current)
        let copy = try keepOriginal(of: path, as: "\(id).\(plan.format)", state: before)
        let entry = JournalEntry(
            status: .writing, id: id, path: path, target: SafeWrite.resolved(path), format: "\(plan.format)",
            mode: "replace", orientationBefore: plan.before.exif, orientationAfter: Orientation.up.exif, before: before,
            after: after, edit: .none, original: copy)
        // Not written, the copy is of no use: deleted (a failed deletion leaves only a stray copy).
        return try journaled(entry, notWritten: { _ = copy.withPathCString { unlink($0) } }, write: write)
    }

    /// Copies the file at `path` into `originalsFolder` under `name` and checks the copy is it
    /// (size and CRC-32). Returns the copy's path.
    private func keepOriginal(of path: String, as name: String, state: FileState) throws(VidorientError) -> String {
        let folder = originalsFolder
        if folder.withPathCString({ mkdir($0, 0o700) }) != 0 && errno != EEXIST {
            throw System.error("could not make '\(folder.pathForDisplay)' for the originals")
        }
        guard let status = System.status(folder), (status.st_mode & S_IFMT) == S_IFDIR else {
            throw .io("could not keep the original in '\(folder.pathForDisplay)': not a folder")
        }
        // Absolute, so that undo finds it from any folder.
        let copy = SafeWrite.resolved(folder) + "/" + name
        do throws(VidorientError) {
            _ = try EditWriter.write(.edit(.none), path: path, mode: .copy(to: copy)) { written in
                let sums = try EditChecksums(path: written, edit: .none)
                guard sums.size == state.size, sums.current == state.crc32 else {
                    throw VidorientError.io("the copy is not the original (size or crc-32 differs)")
                }
            }
        } catch { throw error.context("could not keep the original in '\(folder.pathForDisplay)'") }
        return copy
    }

    /// `entry` (a `writing` line) recorded, `write` run, then `written` with the new mtime; or
    /// `not_written` with the reason (and `notWritten` run) when `write` throws and the file is
    /// still the original.
    private func journaled<Result>(
        _ entry: JournalEntry, notWritten: () -> Void = {}, write: () throws(VidorientError) -> Result
    ) throws(VidorientError) -> Result {
        var entry = entry
        try append(entry)
        let result: Result
        do { result = try write() } catch {
            // `not_written` only when the file is still the original: a writer that failed after
            // its rename (a read-back that failed) did write, and its `writing` line stands.
            // Absent is fine: a file that cannot be read now keeps its `writing` line, which undo checks.
            if let still = try? EditChecksums(path: entry.path, edit: entry.edit), still.holdsOldBytes,
                still.size == entry.before.size, still.current == entry.before.crc32
            {
                entry.status = .notWritten
                entry.reason = error.reason
                try append(entry)
                notWritten()
            }
            throw error
        }
        entry.status = .written
        entry.after.mtimeNanoseconds = fileStatus(entry.path)?.mtimeNanoseconds
        try append(entry)
        return result
    }
}
