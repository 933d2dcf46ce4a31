import Synchronization
public import VidorientCore
public import VidorientIO

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
        /// The file is the original already (size and CRC-32 of the journal's `before`): undone
        /// before, by an earlier `--undo` or by hand. Nothing was done.
        case alreadyUndone
        /// `--dry-run`: the file is as the fix left it, and would be restored. Nothing was done.
        case wouldRestore
    }

    /// The fixes to undo, newest first: each fix's last line, without those never written.
    public static func fixes(in entries: [JournalEntry]) -> [JournalEntry] {
        var last: [String: Int] = [:]
        for (index, entry) in entries.enumerated() { last[entry.id] = index }
        return last.values.sorted(by: >).map { entries[$0] }.filter { $0.status != .notWritten }
    }

    /// Writes `change` to `path`: in place when `inPlace` (an edit that keeps the length), else a
    /// copy renamed over. Checks what it wrote as its own verification demands.
    public typealias Writer = (_ path: String, _ change: EditWriter.Change, _ inPlace: Bool) throws(VidorientError) ->
        Void

    /// Undoes one fix. The caller holds the file's lock. Refuses, changing nothing, when the file
    /// is not as the fix left it: another size or mtime, the fixed bytes not where they were
    /// written, or another checksum; unless it is the original already. `write` nil is a dry run:
    /// every check, nothing written.
    public static func undo(_ entry: JournalEntry, write: Writer?) throws(VidorientError) -> Outcome {
        guard let status = fileStatus(entry.path) else { throw .io("it is gone") }
        // Never through a link the fix did not go through: a symbolic link put in the file's place
        // since (to a copy of the fixed file elsewhere) leads somewhere the fix never wrote.
        if let target = entry.target, case let now = SafeWrite.resolved(entry.path), now != target {
            throw .io(
                "it is not the file the fix wrote: it leads to '\(now.pathForDisplay)' now, the fix wrote "
                    + "'\(target.pathForDisplay)' (a symbolic link put in its place?); undo writes only to the files it fixed"
            )
        }
        let inverse = entry.edit.inverse
        if entry.status == .writing {
            // Killed between the journal's `writing` line and its `written` one: either state.
            let original = try EditChecksums(path: entry.path, edit: entry.edit)
            if status.size == entry.before.size && original.holdsOldBytes && original.current == entry.before.crc32 {
                return .neverWritten
            }
        }
        var changed: String? = nil
        var sums: EditChecksums? = nil
        if status.size != entry.after.size {
            changed = "\(status.size) bytes, not the \(entry.after.size) the fix left"
        } else if let mtime = entry.after.mtimeNanoseconds, mtime != status.mtimeNanoseconds {
            changed = "its modification time is not the one the fix left"
        } else {
            let read = try EditChecksums(path: entry.path, edit: inverse)
            if !read.holdsOldBytes {
                changed = "the bytes the fix wrote are not there"
            } else if read.current != entry.after.crc32 {
                changed = "its crc-32 is not the one the fix left"
            }
            sums = read
        }
        if let changed {
            // Undone already (`--undo` run twice, or the file put back by hand): say so, not "changed".
            if status.size == entry.before.size,
                try EditChecksums(path: entry.path, edit: .none).current == entry.before.crc32
            {
                return .alreadyUndone
            }
            throw .io("it changed since the fix: \(changed)")
        }
        let change: EditWriter.Change
        if let original = entry.original {
            // A normalize: the copy the journal kept is the original, checked before it is written back.
            let bytes: [UInt8]
            // One byte over the original's size is read, so that a longer copy is told apart below.
            do { bytes = try FileBytes.readAll(original, limit: entry.before.size + 1) } catch {
                throw error.context("the copy of the original '\(original.pathForDisplay)' cannot be read")
            }
            guard Int64(bytes.count) == entry.before.size,
                UInt32(truncatingIfNeeded: EditChecksums.crc(0, bytes)) == entry.before.crc32
            else {
                throw .io(
                    "the copy of the original '\(original.pathForDisplay)' is not the original (size or crc-32 differs); nothing written"
                )
            }
            change = .contents([.bytes(bytes[...])])
        } else {
            guard let sums, sums.edited == entry.before.crc32 else {
                throw VidorientError(
                    "the journal's splices would not give back the original (crc-32 differs); nothing written")
            }
            change = .edit(inverse)
        }
        guard let write else { return .wouldRestore }
        try write(entry.path, change, entry.mode == "in_place" && inverse.keepsLength && entry.original == nil)
        let restored = try EditChecksums(path: entry.path, edit: .none)
        guard restored.size == entry.before.size, restored.current == entry.before.crc32 else {
            throw .io("written, but the file read back is not the original (size or crc-32 differs)")
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

    /// What undoing one file's fixes did: each fix undone, newest first, and the refusal that
    /// stopped the rest (its older fixes are left alone).
    public struct FileOutcome: Sendable {
        public var path: String
        public var undone: [(entry: JournalEntry, outcome: Outcome)] = []
        public var refusal: VidorientError?
    }

    /// How many fixes an undo restored, found never written, and how many files it refused: the
    /// line `fix --undo` ends with.
    public struct Summary: Sendable, Hashable {
        /// `restored` counts `wouldRestore` in a dry run; `neverWritten` is every fix with nothing
        /// to undo (never written, or undone already).
        public var restored = 0, neverWritten = 0, refused = 0
        public var dryRun = false

        public init(_ files: [FileOutcome]) {
            for file in files {
                if file.refusal != nil { refused += 1 }
                for (_, outcome) in file.undone {
                    switch outcome {
                    case .restored: restored += 1
                    case .wouldRestore:
                        restored += 1
                        dryRun = true
                    case .neverWritten, .alreadyUndone: neverWritten += 1
                    }
                }
            }
        }

        /// `restored 2, nothing to undo 1, refused 0` (`would restore` in a dry run).
        public var line: String {
            "\(dryRun ? "would restore" : "restored") \(restored), nothing to undo \(neverWritten), refused \(refused)"
        }
    }

    /// What a journal asks to undo: each file's fixes, newest first, files in the order they first
    /// appear in the journal's newest-first list; and the journal's warnings (a last line cut short).
    public struct Plan: Sendable {
        public var files: [[JournalEntry]]
        public var warnings: [String]

        /// Reads the journal at `path`.
        public init(journal path: String) throws(VidorientError) {
            let read = try JournalFile.read(path: path)
            // One fix is one file: lines of one fix that name two files come from an edited
            // journal, whose older line would otherwise be dropped without a word (issue 23).
            var pathOfFix: [String: String] = [:]
            for entry in read.entries {
                if let earlier = pathOfFix[entry.id], earlier != entry.path {
                    throw .malformed(
                        "could not read the journal '\(path)': fix \(entry.id) names both '\(earlier.pathForDisplay)' and '\(entry.path.pathForDisplay)' (an edited journal); nothing undone"
                    )
                }
                pathOfFix[entry.id] = entry.path
            }
            var grouping: [[JournalEntry]] = []
            var groupOfPath: [String: Int] = [:]
            for entry in Undo.fixes(in: read.entries) {
                if let index = groupOfPath[entry.path] {
                    grouping[index].append(entry)
                } else {
                    groupOfPath[entry.path] = grouping.count
                    grouping.append([entry])
                }
            }
            files = grouping
            warnings = read.warnings
        }
    }

    /// Undoes every fix the plan holds (`vidorient fix --undo`): a file's fixes in turn, each under
    /// the file's lock, written back by `EditWriter` (in place when the fix was) and read back
    /// whole; files in parallel, `jobs` at once. A file that changed since is refused with the
    /// reason and its older fixes left alone. `finished` hears each file's outcome as it comes.
    /// Returns the outcomes in the plan's order.
    /// With `dryRun`, every check and nothing written: a file's newest fix is checked against the
    /// file, each older one against the journal (its `after` must be the newer one's `before`).
    public static func run(
        _ plan: Plan, jobs: Int = processorCount, dryRun: Bool = false,
        finished: @Sendable (FileOutcome) -> Void = { _ in }
    ) -> [FileOutcome] {
        let groups = plan.files
        let outcomes = Mutex([FileOutcome?](repeating: nil, count: groups.count))
        withoutActuallyEscaping(finished) { finished in
            forEachConcurrently(groups.count, jobs: jobs) { index in
                let outcome = undoAll(groups[index], dryRun: dryRun)
                outcomes.withLock { $0[index] = outcome }
                finished(outcome)
            }
        }
        // Every index was run exactly once (`forEachConcurrently`).
        return outcomes.withLock { $0.map { $0! } }
    }

    /// One file's fixes, newest first, under its lock, until one is refused.
    static func undoAll(_ entries: [JournalEntry], dryRun: Bool = false) -> FileOutcome {
        var result = FileOutcome(path: entries[0].path)
        for (index, entry) in entries.enumerated() {
            do throws(VidorientError) {
                if dryRun && index > 0 {
                    // Nothing was written for the newer fix: this one is checked against it.
                    let newer = entries[index - 1]
                    guard let last = result.undone.last, last.outcome == .wouldRestore,
                        newer.before.size == entry.after.size, newer.before.crc32 == entry.after.crc32
                    else {
                        throw .io("the journal's fixes of it do not follow one another; undo would stop here")
                    }
                    result.undone.append((entry, .wouldRestore))
                    continue
                }
                let lock = try FileLock(path: entry.path)
                let outcome = try withExtendedLifetime(lock) { () throws(VidorientError) -> Outcome in
                    guard !dryRun else { return try undo(entry, write: nil) }
                    return try undo(entry) { path, change, inPlace throws(VidorientError) in
                        // The same writer as every fix; the check is undo's own (size and crc-32).
                        _ = try EditWriter.write(change, path: path, mode: inPlace ? .inPlace : .replace, lock: lock) {
                            _ in
                        }
                    }
                }
                result.undone.append((entry, outcome))
            } catch {
                result.refusal = error
                break
            }
        }
        // Every fix of the file undone already (`--undo` run twice): the file is the oldest
        // fix's original, which the newest fix's check alone cannot see.
        if result.refusal != nil, result.undone.isEmpty, entries.count > 1, let oldest = entries.last,
            fileStatus(oldest.path)?.size == oldest.before.size,
            (try? EditChecksums(path: oldest.path, edit: .none).current) == oldest.before.crc32
        {
            result.refusal = nil
            result.undone = entries.map { ($0, .alreadyUndone) }
        }
        return result
    }
}
