public import VidorientCore

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
        var entry = JournalEntry(
            status: .writing, id: nextID(), path: planned.path, format: planned.format, mode: planned.mode,
            orientationBefore: planned.orientationBefore?.exif, orientationAfter: planned.orientationAfter?.exif,
            before: FileState(size: sums.size, mtimeNanoseconds: status.mtimeNanoseconds, crc32: sums.current),
            after: FileState(size: sums.size + planned.edit.sizeChange, mtimeNanoseconds: nil, crc32: sums.edited),
            edit: planned.edit)
        try append(entry)
        let result: Result
        do { result = try write() } catch {
            // `not_written` only when the file is still the original: a writer that failed after
            // its rename (a read-back that failed) did write, and its `writing` line stands.
            // Absent is fine: a file that cannot be read now keeps its `writing` line, which undo checks.
            if let still = try? EditChecksums(path: planned.path, edit: planned.edit), still.holdsOldBytes,
                still.size == entry.before.size, still.current == entry.before.crc32
            {
                entry.status = .notWritten
                entry.reason = error.reason
                try append(entry)
            }
            throw error
        }
        entry.status = .written
        let after = fileStatus(planned.path)
        entry.after.mtimeNanoseconds = after?.mtimeNanoseconds
        try append(entry)
        return result
    }
}
