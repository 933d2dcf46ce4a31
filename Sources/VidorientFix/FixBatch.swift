import Synchronization
import VidorientAudit
import VidorientCore
import VidorientFix
import VidorientISOBMFF
import VidorientPhoto

/// One file to fix: from the command line, or from an audit's suggested fix.
struct FixJob: Sendable {
    let path: String
    let change: OrientationChange
    let resetMovieMatrix: Bool
    /// From `--from-audit`: what the audit saw the file show; a file showing something else now
    /// changed since, and is refused.
    let shownAtAudit: Orientation?
}

/// What became of one file.
enum FixOutcome: Sendable {
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
    init(_ error: any Error) {
        switch error {
        case let error as ISOBMFFError:
            self = error.kind == .unsupported ? .refused(error.reason) : .failed(error.reason)
        case let error as FixError: self = .failed(error.reason)
        default: self = .failed("\(error)")
        }
    }

    var result: AnyFixResult? {
        switch self {
        case .fixed(let result, _, _), .alreadyRight(let result): result
        case .refused, .failed: nil
        }
    }

    /// `--from-audit --dry-run`'s line: path, before -> after, what would change.
    var dryRunLine: String? {
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

extension AnyFixResult {
    var path: String {
        switch self {
        case .video(let result): result.path
        case .photo(let result): result.path
        }
    }

    var bytesChanged: Int {
        switch self {
        case .video(let result): result.bytesChanged
        case .photo(let result): result.bytesChanged
        }
    }

    var writtenPath: String? {
        switch self {
        case .video(let result): result.writtenPath
        case .photo(let result): result.writtenPath
        }
    }

    var warnings: [String] {
        switch self {
        case .video(let result): result.warnings
        case .photo: []
        }
    }

    /// What the file showed; for a video, its first track's own matrix.
    var shownBefore: Orientation? {
        switch self {
        case .video(let result): result.before.exifOrientation.flatMap(Orientation.init(exif:))
        case .photo(let result): result.before.exifOrientation.flatMap(Orientation.init(exif:))
        }
    }

    /// Each place that changes, for a person.
    var places: [String] {
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
struct FixSummary {
    var fixed = 0, alreadyRight = 0, refused = 0, failed = 0

    init(_ outcomes: [FixOutcome], unreadableLines: Int = 0) {
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

    func line(dryRun: Bool) -> String {
        "\(dryRun ? "would fix" : "fixed") \(fixed), already right \(alreadyRight), refused \(refused), failed \(failed)"
    }
}

/// Fixes many files at once, one worker per core as the audit does, each file on its own: a
/// bad one is one line on stderr and the others go on.
struct FixBatch: Sendable {
    let mode: FileWriteMode
    let dryRun: Bool
    let preserveModificationTime: Bool
    let journal: JournalFile?
    let jobs: Int

    /// Runs every job; the outcomes in the jobs' order.
    func run(_ list: [FixJob], showProgress: Bool) -> [FixOutcome] {
        let progress = ProgressBar(total: list.count, quiet: !showProgress || list.count < 2)
        let outcomes = Mutex([FixOutcome?](repeating: nil, count: list.count))
        let batch = self
        forEachConcurrently(list.count, jobs: jobs) { index in
            let job = list[index]
            let outcome = batch.fix(job)
            switch outcome {
            case .refused(let reason), .failed(let reason): progress.warn("could not fix '\(job.path)': \(reason)")
            case .fixed(let result, _, _), .alreadyRight(let result):
                for warning in result.warnings { progress.warn("warning: '\(job.path)': \(warning)") }
            }
            outcomes.withLock { $0[index] = outcome }
            progress.advance(job.path)
        }
        progress.finish()
        return outcomes.withLock { $0.map { $0! } }
    }

    /// One file: locked from the first look to the read-back (another run's change in between
    /// would make this one's plan and its check about different files), planned against what
    /// `inspect` shows, journaled around the write.
    func fix(_ job: FixJob) -> FixOutcome {
        let file = job.path
        // One question, asked once: what the file is. Photos take the tag fix.
        if let format = try? PhotoReader.format(of: file), format.isPhoto { return fixPhoto(job) }
        var lock: FileLock? = nil
        if !dryRun {
            do throws(ISOBMFFError) { lock = try FileLock(path: file) } catch { return .failed(error.reason) }
        }
        defer { withExtendedLifetime(lock) {} }
        let intent: FixIntent
        do throws(FixIntent.Refusal) { intent = try FixIntent(file: file, change: job.change) } catch {
            return .refused(error.reason)
        }
        if let seen = job.shownAtAudit, intent.shown != seen {
            let now = intent.shown.map { "EXIF \($0.exif)" } ?? "no orientation of the eight"
            return .refused("it changed since the audit: it shows \(now), the audit saw EXIF \(seen.exif)")
        }
        let result: FixResult
        do {
            if let journal, !dryRun, let planned = try planned(job, intent: intent) {
                result = try journal.record(planned) { () throws(FixError) in
                    do throws(ISOBMFFError) {
                        return try MatrixFix.fix(
                            path: file, change: intent.change, resetMovieMatrix: job.resetMovieMatrix, mode: mode,
                            dryRun: false,
                            preserveModificationTime: preserveModificationTime, lock: lock)
                    } catch { throw FixError(error.reason) }
                }
            } else {
                result = try MatrixFix.fix(
                    path: file, change: intent.change, resetMovieMatrix: job.resetMovieMatrix, mode: mode,
                    dryRun: dryRun,
                    preserveModificationTime: preserveModificationTime, lock: lock)
            }
        } catch {
            return FixOutcome(error)
        }
        if let written = result.writtenPath, let problem = intent.checkShown(written) { return .failed(problem) }
        return result.bytesChanged > 0 || result.writtenPath != nil
            ? .fixed(.video(result), shown: intent.shown, target: intent.target) : .alreadyRight(.video(result))
    }

    /// The photo path: `PhotoTagFix` plans (a dry run, under this lock), the journal records the
    /// plan's edit, then `PhotoTagFix.fix` writes it with `EditWriter` and reads it back.
    private func fixPhoto(_ job: FixJob) -> FixOutcome {
        let file = job.path
        var lock: FileLock? = nil
        if !dryRun {
            do throws(ISOBMFFError) { lock = try FileLock(path: file) } catch { return .failed(error.reason) }
        }
        defer { withExtendedLifetime(lock) {} }
        let result: PhotoFixResult
        do throws(any Error) {
            let plan = try PhotoTagFix.fix(path: file, change: job.change, mode: mode, dryRun: true, lock: lock)
            let shown = plan.before.exifOrientation.flatMap(Orientation.init(exif:))
            // A tag that is not 1-8 is shown as 1, as `PhotoReport` (and so the audit) decides.
            if let seen = job.shownAtAudit, (shown ?? .up) != seen {
                return .refused(
                    "it changed since the audit: it shows EXIF \((shown ?? .up).exif), the audit saw EXIF \(seen.exif)")
            }
            let write = { () throws(ISOBMFFError) -> PhotoFixResult in
                try PhotoTagFix.fix(
                    path: file, change: job.change, mode: mode, dryRun: false,
                    preserveModificationTime: preserveModificationTime,
                    lock: lock)
            }
            if dryRun {
                result = plan
            } else if let journal, !plan.edit.isEmpty, mode == .replace || mode == .inPlace {
                let planned = PlannedWrite(
                    path: file, format: plan.format, mode: mode.name, orientationBefore: shown,
                    orientationAfter: plan.after.exifOrientation.flatMap(Orientation.init(exif:)), edit: plan.edit)
                result = try journal.record(planned) { () throws(FixError) in
                    let written: PhotoFixResult
                    do throws(ISOBMFFError) { written = try write() } catch { throw FixError(error.reason) }
                    // Under the lock the plan cannot change; if it did, the journal would be wrong.
                    guard written.edit == plan.edit else { throw FixError("the file changed while it was fixed") }
                    return written
                }
            } else {
                result = try write()
            }
        } catch {
            return FixOutcome(error)
        }
        let shown = result.before.exifOrientation.flatMap(Orientation.init(exif:))
        let target = result.after.exifOrientation.flatMap(Orientation.init(exif:))
        return result.bytesChanged > 0 || result.writtenPath != nil
            ? .fixed(.photo(result), shown: shown, target: target) : .alreadyRight(.photo(result))
    }

    /// The write the journal records: the plan's bytes, and what the file shows before and after.
    /// nil when nothing would change, or for a copy (`-o`), which leaves the file alone.
    private func planned(_ job: FixJob, intent: FixIntent) throws(ISOBMFFError) -> PlannedWrite? {
        if case .copy = mode { return nil }
        let movie = try MovieStructure(path: job.path)
        let edit = try MatrixFix(movie, change: intent.change, resetMovieMatrix: job.resetMovieMatrix).edit
        guard !edit.isEmpty else { return nil }
        return PlannedWrite(
            path: job.path, format: MediaFormat.movie.description, mode: mode.name, orientationBefore: intent.shown,
            orientationAfter: intent.target, edit: edit)
    }

    /// The jobs an audit's JSONL asks for, and how many of its lines could not be read (each
    /// said on stderr). Lines without a suggested fix ask for nothing.
    static func jobs(fromAudit input: String) -> (jobs: [FixJob], unreadable: Int) {
        var lines: PathList
        do { lines = try PathList(path: input, nulSeparated: false) } catch {
            Terminal.warn(error.description)
            return ([], 1)
        }
        var jobs: [FixJob] = []
        var unreadable = 0
        var number = 0
        let name = input == "-" ? "standard input" : "'\(input)'"
        while let line = lines.next() {
            number += 1
            guard !line.allSatisfy(\.isWhitespace) else { continue }
            do throws(FixError) {
                guard let fix = try AuditedFix.parse(line: line) else { continue }
                jobs.append(
                    FixJob(
                        path: fix.path, change: .set(fix.orientation), resetMovieMatrix: fix.resetMovieMatrix,
                        shownAtAudit: fix.shownAtAudit))
            } catch {
                Terminal.warn("could not read the audit on \(name), line \(number): \(error.reason)")
                unreadable += 1
            }
        }
        return (jobs, unreadable)
    }

    /// `fix --undo`: every fix the journal records, newest first. A file's fixes are undone in
    /// turn, files in parallel; a file that changed since is refused (one line) and its older
    /// fixes left alone.
    static func undo(journal path: String, jobs: Int, showProgress: Bool) throws {
        let read: (entries: [JournalEntry], warnings: [String])
        do throws(FixError) { read = try JournalFile.read(path: path) } catch {
            Terminal.warn(error.reason)
            throw ExitStatus.unreadableInput
        }
        for warning in read.warnings { Terminal.warn("warning: \(warning)") }
        // One group per file, in the order the files first appear (newest fix first within each).
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
        let groups = grouping
        struct Counts { var restored = 0, neverWritten = 0, refused = 0 }
        let counts = Mutex(Counts())
        let lines = Mutex([String?](repeating: nil, count: groups.count))
        let progress = ProgressBar(total: groups.count, quiet: !showProgress || groups.count < 2)
        forEachConcurrently(groups.count, jobs: jobs) { index in
            var text = ""
            for entry in groups[index] {
                let name = entry.path.escapingControlCharacters
                do throws(FixError) {
                    let lock: FileLock
                    do throws(ISOBMFFError) { lock = try FileLock(path: entry.path) } catch {
                        throw FixError(error.reason)
                    }
                    let outcome = try withExtendedLifetime(lock) { () throws(FixError) -> Undo.Outcome in
                        try Undo.undo(entry) { path, edit, inPlace throws(FixError) in
                            do throws(ISOBMFFError) {
                                // The same writer as every fix; the check is undo's own (size and crc-32).
                                _ = try EditWriter.write(
                                    edit, path: path, mode: inPlace ? .inPlace : .replace, lock: lock
                                ) { _ in }
                            } catch { throw FixError(error.reason) }
                        }
                    }
                    switch outcome {
                    case .restored:
                        counts.withLock { $0.restored += 1 }
                        let before = entry.orientationAfter.map { "EXIF \($0)" } ?? "?"
                        let after = entry.orientationBefore.map { "EXIF \($0)" } ?? "?"
                        text +=
                            "\(name): restored (\(before) -> \(after), \(entry.before.size) bytes, crc-32 \(entry.before.crc32Hex))\n"
                    case .neverWritten:
                        counts.withLock { $0.neverWritten += 1 }
                        text += "\(name): never written (the fix was stopped before it wrote); nothing to undo\n"
                    }
                } catch {
                    counts.withLock { $0.refused += 1 }
                    progress.warn("could not undo '\(entry.path)': \(error.reason)")
                    break
                }
            }
            lines.withLock { $0[index] = text }
            progress.advance(groups[index][0].path)
        }
        progress.finish()
        print(lines.withLock { $0.compactMap { $0 }.joined() }, terminator: "")
        let total = counts.withLock { $0 }
        Terminal.warn("restored \(total.restored), nothing to undo \(total.neverWritten), refused \(total.refused)")
        if total.refused > 0 { throw ExitStatus.unreadableInput }
    }
}
