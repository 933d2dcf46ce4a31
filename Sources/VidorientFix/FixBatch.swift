import Synchronization
public import Vidorient
public import VidorientCore
public import VidorientIO
import VidorientISOBMFF
import VidorientPhoto

/// One file to fix: from the command line, or from an audit's suggested fix.
public struct FixJob: Sendable {
    public let path: String
    public let change: OrientationChange
    public let resetMovieMatrix: Bool
    /// From `--from-audit`: what the audit saw the file show; a file showing something else now
    /// changed since, and is refused.
    public let shownAtAudit: Orientation?
    /// From `--from-audit`: what identified the file at the audit. The path must still name that
    /// file itself (not a link, nothing put there since), or the job is refused.
    public let audited: AuditedFile?

    public init(
        path: String, change: OrientationChange, resetMovieMatrix: Bool = false, shownAtAudit: Orientation? = nil,
        audited: AuditedFile? = nil
    ) {
        self.path = path
        self.change = change
        self.resetMovieMatrix = resetMovieMatrix
        self.shownAtAudit = shownAtAudit
        self.audited = audited
    }

    /// A job from an audit refuses a path that is a symbolic link now (the audit's walk did not
    /// follow it, so neither does the fix), and one whose file is not the one audited: another
    /// inode (the file, or a folder above it, replaced since), size, modification time or first
    /// 4 KiB. Nothing is read through a link before this says yes.
    func checkAudited() throws(VidorientError) {
        guard shownAtAudit != nil || audited != nil else { return }
        let now: AuditedFile
        do throws(VidorientError) { now = try AuditedFile(path: path) } catch {
            throw .unsupported("it changed since the audit: \(error.reason)")
        }
        if let audited, let changed = audited.differences(now: now) {
            throw .unsupported("it changed since the audit: \(changed) differ")
        }
    }
}

/// What became of one file.
public enum FixOutcome: Sendable {
    /// Written (or, in a dry run, would be), with what the file shows before and after, as
    /// `inspect` sees it (the track and movie matrices together).
    case fixed(AnyFixResult, shown: Orientation?, target: Orientation?)
    /// Already as asked: nothing written.
    case alreadyRight(AnyFixResult)
    /// A check said no (a file this fix will not change, or one changed since the audit).
    case refused(String)
    /// Could not be read or written.
    case failed(String)

    /// A fix that threw: an unsupported file is refused, anything else failed.
    public init(_ error: VidorientError) {
        self = error.kind == .unsupported ? .refused(error.reason) : .failed(error.reason)
    }

    public var result: AnyFixResult? {
        switch self {
        case .fixed(let result, _, _), .alreadyRight(let result): result
        case .refused, .failed: nil
        }
    }

    /// `--from-audit --dry-run`'s line: path, before -> after, what would change.
    public var dryRunLine: String? {
        let describe = { (orientation: Orientation?) in
            orientation.map { "EXIF \($0.exif)" } ?? "no orientation of the eight"
        }
        switch self {
        case .refused, .failed: return nil
        case .alreadyRight(let result):
            return
                "\(result.path.escapingControlCharacters): \(describe(result.shownBefore)), already right; nothing would change\n"
        case .fixed(let result, let shown, let target):
            let bytes = result.bytesChanged == 1 ? "1 byte" : "\(result.bytesChanged) bytes"
            return
                "\(result.path.escapingControlCharacters): \(describe(shown)) -> \(describe(target)); \(bytes) would change "
                + "(\(result.places.joined(separator: "; ")))\n"
        }
    }
}

/// One file's result, video or photo, for one output list.
public enum AnyFixResult: Sendable, Encodable {
    case video(FixResult)
    case photo(PhotoFixResult)

    // Hand-written: a different shape, the result itself without an enum wrapper.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .video(let result): try result.encode(to: encoder)
        case .photo(let result): try result.encode(to: encoder)
        }
    }
}

extension AnyFixResult {
    public var path: String {
        switch self {
        case .video(let result): result.path
        case .photo(let result): result.path
        }
    }

    public var bytesChanged: Int {
        switch self {
        case .video(let result): result.bytesChanged
        case .photo(let result): result.bytesChanged
        }
    }

    public var writtenPath: String? {
        switch self {
        case .video(let result): result.writtenPath
        case .photo(let result): result.writtenPath
        }
    }

    public var warnings: [String] {
        switch self {
        case .video(let result): result.warnings
        case .photo(let result): result.warnings
        }
    }

    /// What the file showed; for a video, its first track's own matrix.
    public var shownBefore: Orientation? {
        switch self {
        case .video(let result): result.before.exifOrientation.flatMap(Orientation.init(exif:))
        case .photo(let result): result.before.exifOrientation.flatMap(Orientation.init(exif:))
        }
    }

    /// Each place that changes, for a person.
    public var places: [String] {
        switch self {
        case .video(let result):
            result.changes.filter { $0.bytesChanged > 0 }.map {
                $0.trackID.map { "track \($0) matrix" } ?? "movie matrix"
            }
        case .photo(let result): result.places
        }
    }
}

/// Counts for the summary line on stderr.
public struct FixSummary: Sendable {
    public var fixed = 0, alreadyRight = 0, refused = 0, failed = 0

    public init(_ outcomes: [FixOutcome], unreadableLines: Int = 0) {
        failed = unreadableLines
        for outcome in outcomes {
            switch outcome {
            case .fixed: fixed += 1
            case .alreadyRight: alreadyRight += 1
            case .refused: refused += 1
            case .failed: failed += 1
            }
        }
    }

    public func line(dryRun: Bool) -> String {
        "\(dryRun ? "would fix" : "fixed") \(fixed), already right \(alreadyRight), refused \(refused), failed \(failed)"
    }
}

/// Fixes many files at once, one worker per core as the audit does, each file on its own: a
/// bad one is an outcome (refused or failed, with the reason) and the others go on. Per file,
/// under its `FileLock` from the first look to the read-back: what the file is (photos take the
/// tag fix), the plan (a video's against what `inspect` shows: `FixIntent`), the journal's
/// `writing` line, the write through `EditWriter` and its read-back, the journal's `written` line.
public struct FixBatch: Sendable {
    public let mode: FileWriteMode
    public let dryRun: Bool
    public let preserveModificationTime: Bool
    /// Where every write is recorded for `Undo`; nil records nothing.
    public let journal: JournalFile?
    /// Files fixed at once.
    public let jobs: Int
    /// How a video is read as `inspect` reads it (`Prober().inspection(_:orientationOnly: true)` by
    /// default: FFmpeg only where it could see more than the boxes).
    public let inspect: FixIntent.Inspection

    public init(
        mode: FileWriteMode = .replace, dryRun: Bool = false, preserveModificationTime: Bool = false,
        journal: JournalFile? = nil, jobs: Int = processorCount,
        inspect: @escaping FixIntent.Inspection = { try Prober().inspection($0, orientationOnly: true) }
    ) {
        self.mode = mode
        self.dryRun = dryRun
        self.preserveModificationTime = preserveModificationTime
        self.journal = journal
        self.jobs = jobs
        self.inspect = inspect
    }

    /// Runs every job; the outcomes in the jobs' order. `finished` hears each outcome as it comes
    /// (from the worker that made it; for progress and warnings).
    public func run(_ list: [FixJob], finished: @Sendable (FixJob, FixOutcome) -> Void = { _, _ in }) -> [FixOutcome] {
        let outcomes = Mutex([FixOutcome?](repeating: nil, count: list.count))
        withoutActuallyEscaping(finished) { finished in
            let batch = self
            forEachConcurrently(list.count, jobs: jobs) { index in
                let outcome = batch.fix(list[index])
                outcomes.withLock { $0[index] = outcome }
                finished(list[index], outcome)
            }
        }
        // Every index was run exactly once (`forEachConcurrently`).
        return outcomes.withLock { $0.map { $0! } }
    }

    /// One file: locked from the first look to the read-back (another run's change in between
    /// would make this one's plan and its check about different files), planned against what
    /// `inspect` shows, journaled around the write.
    public func fix(_ job: FixJob) -> FixOutcome {
        do throws(VidorientError) {
            try job.checkAudited()
            let lock = dryRun ? nil : try FileLock(path: job.path)
            // Again under the lock: the file locked is the one checked, and nothing is swapped in
            // between this check and the write by another vidorient.
            if lock != nil { try job.checkAudited() }
            return try withExtendedLifetime(lock) { () throws(VidorientError) -> FixOutcome in
                // One question, asked once and under the lock: what the file is. Photos take the tag
                // fix, movies the matrix fix; anything else is said as what fix takes (issue 24).
                let format = try Prober.format(of: job.path)
                if case .other(let name) = format {
                    throw .unsupported(
                        "not a photo, MP4 or QuickTime file (\(name ?? "no signature of theirs at the start")): fix "
                            + "changes JPEG, PNG, WebP, TIFF/DNG/raw, HEIF/AVIF, MP4 and QuickTime files")
                }
                return format.isPhoto ? try fixPhoto(job, lock: lock) : try fixVideo(job, lock: lock)
            }
        } catch {
            return FixOutcome(error)
        }
    }

    private func fixVideo(_ job: FixJob, lock: FileLock?) throws(VidorientError) -> FixOutcome {
        let file = job.path
        let intent = try FixIntent(file: file, change: job.change, inspect: inspect)
        if let seen = job.shownAtAudit, intent.shown != seen {
            let now = intent.shown.map { "EXIF \($0.exif)" } ?? "no orientation of the eight"
            return .refused("it changed since the audit: it shows \(now), the audit saw EXIF \(seen.exif)")
        }
        // What inspect shows is checked as part of the read-back, before the fix is reported (in
        // place, before the flush): a file that would not show the target gets its old bytes back.
        let write = { (dryRun: Bool) throws(VidorientError) -> FixResult in
            try MatrixFix.fix(
                path: file, change: intent.change, resetMovieMatrix: job.resetMovieMatrix, mode: mode,
                dryRun: dryRun, preserveModificationTime: preserveModificationTime, lock: lock,
                movie: intent.inspected?.movie, alsoCheck: intent.checkShown)
        }
        var result: FixResult
        if let journal, !dryRun, let planned = try planned(job, intent: intent) {
            result = try journal.record(planned) { () throws(VidorientError) in try write(false) }
        } else {
            result = try write(dryRun)
        }
        if let warning = intent.inspectionWarning { result.warnings.append(warning) }
        return result.bytesChanged > 0 || result.writtenPath != nil
            ? .fixed(.video(result), shown: intent.shown, target: intent.target) : .alreadyRight(.video(result))
    }

    /// The photo path: `PhotoTagFix` plans (a dry run, under this lock), the journal records the
    /// plan's edit, then `PhotoTagFix.fix` writes it with `EditWriter` and reads it back.
    private func fixPhoto(_ job: FixJob, lock: FileLock?) throws(VidorientError) -> FixOutcome {
        let file = job.path
        // Before the plan's read, which may move the access time.
        let times = preserveModificationTime && !dryRun ? try FileTimes(path: file) : nil
        // Planned once, under this lock; the journal records this edit and the writer writes it.
        let planned = try PhotoTagFix.plan(path: file, change: job.change, mode: mode)
        let plan = planned.result
        let shown = plan.before.exifOrientation.flatMap(Orientation.init(exif:))
        // A tag that is not 1-8 is shown as 1, as `PhotoReport` (and so the audit) decides.
        if let seen = job.shownAtAudit, (shown ?? .up) != seen {
            return .refused(
                "it changed since the audit: it shows EXIF \((shown ?? .up).exif), the audit saw EXIF \(seen.exif)")
        }
        let write = { () throws(VidorientError) -> PhotoFixResult in
            try PhotoTagFix.write(planned, mode: mode, preservingTimes: times, lock: lock)
        }
        let result: PhotoFixResult
        if dryRun {
            result = plan
        } else if let journal, !plan.edit.isEmpty, mode == .replace || mode == .inPlace {
            let journaled = PlannedWrite(
                path: file, format: plan.format, mode: mode.name, orientationBefore: shown,
                orientationAfter: plan.after.exifOrientation.flatMap(Orientation.init(exif:)), edit: plan.edit)
            result = try journal.record(journaled) { () throws(VidorientError) in try write() }
        } else {
            result = try write()
        }
        let before = result.before.exifOrientation.flatMap(Orientation.init(exif:))
        let target = result.after.exifOrientation.flatMap(Orientation.init(exif:))
        return result.bytesChanged > 0 || result.writtenPath != nil
            ? .fixed(.photo(result), shown: before, target: target) : .alreadyRight(.photo(result))
    }

    /// The write the journal records: the plan's bytes, and what the file shows before and after.
    /// nil when nothing would change, or for a copy (`-o`), which leaves the file alone.
    private func planned(_ job: FixJob, intent: FixIntent) throws(VidorientError) -> PlannedWrite? {
        if case .copy = mode { return nil }
        // The structure the inspection parsed under this lock: the `moov` is not parsed again.
        let movie: MovieStructure
        if let parsed = intent.inspected?.movie { movie = parsed } else { movie = try MovieStructure(path: job.path) }
        let edit = try MatrixFix(movie, change: intent.change, resetMovieMatrix: job.resetMovieMatrix).edit
        guard !edit.isEmpty else { return nil }
        return PlannedWrite(
            path: job.path, format: MediaFormat.movie.description, mode: mode.name, orientationBefore: intent.shown,
            orientationAfter: intent.target, edit: edit)
    }

    /// The jobs an audit asks for (`input`: a path, or `-` for standard input; `audit --jsonl`
    /// lines or one `audit --json` document, read as `AuditInput` says) of the findings
    /// `selection` applies (judgments only when approved or named: `AuditSelection`), each record
    /// that could not be read, said as one line naming it, and a note for each judgment applied
    /// and each suggested fix held back. Records without a suggested fix ask for nothing. Throws,
    /// before any job exists, when the input cannot be opened or is neither.
    ///
    /// A file listed twice (shards run twice, outputs concatenated) is fixed once: a second record
    /// asking the same fix is skipped and said in `repeated`; one asking another fix refuses both,
    /// since the audit does not say which is right.
    public static func plan(fromAudit input: String, selection: AuditSelection = AuditSelection())
        throws(VidorientError) -> AuditPlan
    {
        var reader = try AuditInput<AuditedFix.Record>(path: input)
        var plan = AuditPlan()
        var jobs: [FixJob?] = []
        // Where each path's job is, and the place of the record that asked for it.
        var listed: [String: (index: Int, place: String, fix: AuditedFix)] = [:]
        let name = input == "-" ? "standard input" : "'\(input)'"
        do {
            try reader.read { item in
                switch item {
                case .unreadable(let reason): plan.unreadable.append(reason)
                case .record(let record, let place):
                    do throws(VidorientError) {
                        let (fix, notes) = try AuditedFix.choose(record, selection: selection)
                        plan.notes += notes
                        guard let fix else { return }
                        if let first = listed[fix.path] {
                            let file = "'\(fix.path.escapingControlCharacters)'"
                            if first.fix.orientation == fix.orientation
                                && first.fix.resetMovieMatrix == fix.resetMovieMatrix
                            {
                                plan.repeated.append(
                                    "\(file) is listed again in the audit on \(name), \(place): fixed once (\(first.place))"
                                )
                            } else if jobs[first.index] != nil {
                                jobs[first.index] = nil
                                plan.unreadable.append(
                                    "could not read the audit on \(name), \(place): it asks another fix for \(file) than "
                                        + "\(first.place) (orientation \(fix.orientation.exif), not "
                                        + "\(first.fix.orientation.exif)); neither is applied: fix it by hand")
                            }
                            return
                        }
                        listed[fix.path] = (jobs.count, place, fix)
                        jobs.append(
                            FixJob(
                                path: fix.path, change: .set(fix.orientation), resetMovieMatrix: fix.resetMovieMatrix,
                                shownAtAudit: fix.shownAtAudit, audited: fix.audited))
                    } catch {
                        plan.unreadable.append("could not read the audit on \(name), \(place): \(error.reason)")
                    }
                }
            }
        } catch let error as VidorientError {
            throw error
        } catch {
            throw .malformed("could not read the audit on \(name): \(error)")
        }
        plan.jobs = jobs.compactMap { $0 }
        return plan
    }

    /// `plan(fromAudit:)`'s jobs and unreadable records, with the default selection.
    public static func jobs(fromAudit input: String) throws(VidorientError) -> (jobs: [FixJob], unreadable: [String]) {
        let plan = try plan(fromAudit: input)
        return (plan.jobs, plan.unreadable)
    }
}

/// What an audit asks `fix --from-audit` to do, once the selection has chosen.
public struct AuditPlan: Sendable {
    public var jobs: [FixJob] = []
    /// Each record that could not be read, said as one line naming it.
    public var unreadable: [String] = []
    /// The judgments applied and why, and every suggested fix held back and why, in the list's order.
    public var notes: [AuditNote] = []
    /// A file listed again with the same fix (fixed once), said as one line naming both places.
    public var repeated: [String] = []

    public init() {}

    public var heldBack: [AuditNote] { notes.filter { !$0.applied } }
    public var appliedJudgments: [AuditNote] { notes.filter(\.applied) }
}
