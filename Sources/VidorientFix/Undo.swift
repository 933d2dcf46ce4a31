public import VidorientCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Puts files back as a journal says they were, byte for byte, refusing any file that is no
/// longer exactly as the fix left it.
public enum Undo {
    /// What undoing one fix did.
    public enum Outcome: Sendable, Hashable {
        /// The file is byte-identical to the original again (size and CRC-32 checked after writing),
        /// with the original's modification time.
        case restored
        /// The fix was journaled as `writing` but never written (killed before): the file is still
        /// the original, and nothing was done.
        case neverWritten
    }

    /// The fixes to undo, newest first: each fix's last line, without those never written.
    public static func fixes(in entries: [JournalEntry]) -> [JournalEntry] {
        var last: [String: Int] = [:]
        for (index, entry) in entries.enumerated() { last[entry.id] = index }
        return last.values.sorted(by: >).map { entries[$0] }.filter { $0.status != .notWritten }
    }

    /// Writes `edit` to `path`: in place when `inPlace` (the edit keeps the length), else a copy
    /// renamed over. Checks what it wrote as its own verification demands.
    public typealias Writer = (_ path: String, _ edit: FileEdit, _ inPlace: Bool) throws(FixError) -> Void

    /// Undoes one fix. The caller holds the file's lock. Refuses, changing nothing, when the file
    /// is not as the fix left it: another size or mtime, the fixed bytes not where they were
    /// written, or another checksum.
    public static func undo(_ entry: JournalEntry, write: Writer) throws(FixError) -> Outcome {
        guard let status = fileStatus(entry.path) else { throw FixError("it is gone") }
        let inverse = entry.edit.inverse
        if entry.status == .writing {
            // Killed between the journal's `writing` line and its `written` one: either state.
            let original = try EditChecksums(path: entry.path, edit: entry.edit)
            if status.size == entry.before.size && original.holdsOldBytes && original.current == entry.before.crc32 {
                return .neverWritten
            }
        }
        guard status.size == entry.after.size else {
            throw FixError("it changed since the fix: \(status.size) bytes, not the \(entry.after.size) the fix left")
        }
        if let mtime = entry.after.mtimeNanoseconds, mtime != status.mtimeNanoseconds {
            throw FixError("it changed since the fix: its modification time is not the one the fix left")
        }
        let sums = try EditChecksums(path: entry.path, edit: inverse)
        guard sums.holdsOldBytes else {
            throw FixError("it changed since the fix: the bytes the fix wrote are not there")
        }
        guard sums.current == entry.after.crc32 else {
            throw FixError("it changed since the fix: its crc-32 is not the one the fix left")
        }
        guard sums.edited == entry.before.crc32 else {
            throw FixError("the journal's splices would not give back the original (crc-32 differs); nothing written")
        }
        try write(entry.path, inverse, entry.mode == "in_place" && inverse.keepsLength)
        let restored = try EditChecksums(path: entry.path, edit: .none)
        guard restored.size == entry.before.size, restored.current == entry.before.crc32 else {
            throw FixError("written, but the file read back is not the original (size or crc-32 differs)")
        }
        if let mtime = entry.before.mtimeNanoseconds {
            let omit = (1 << 30) - 2  // UTIME_OMIT: the access time stays
            var times = [
                timespec(tv_sec: 0, tv_nsec: omit),
                timespec(tv_sec: Int(mtime / 1_000_000_000), tv_nsec: Int(mtime % 1_000_000_000)),
            ]
            _ = entry.path.withPathCString { utimensat(AT_FDCWD, $0, &times, 0) }
        }
        return .restored
    }
}
