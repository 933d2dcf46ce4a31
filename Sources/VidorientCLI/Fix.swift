import ArgumentParser
import Vidorient
import VidorientCore
import VidorientFix
import VidorientIO

struct Fix: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fix",
        abstract: "Set the orientation of photos and of MP4 and QuickTime files, changing only the bytes that say it.",
        discussion: """
            Give exactly one of --orientation N (EXIF 1-8), --rotation DEG [--mirrored] or --reset. \
            --rotation 90 sets a 90° clockwise rotation; a sign, as in --rotation +90 or --rotation -90, turns \
            the picture a further 90° clockwise or counter-clockwise from how it is shown now (--mirrored \
            then mirrors what is shown first). The words are inspect's and orientation's: rotation, \
            mirrored. Only the 36 matrix bytes of each video track's tkhd box \
            change, and the movie's mvhd matrix with --reset-movie-matrix; media data is never touched. \
            Photos (JPEG, PNG, WebP, TIFF/DNG/raw): the EXIF Orientation tag's bytes change (and every XMP \
            tiff:Orientation with it, and a PNG chunk's CRC); a file without the tag gets the smallest \
            insertion that states it. \
            By default the file is copied to a temporary file in its folder, fixed, flushed, checked and \
            renamed over the original; --in-place writes just the changed bytes (refused when bytes must be \
            inserted). Or --from-audit FILE (- for standard input): the fixes an audit suggests \
            (its --jsonl lines, or its one --json document, read whole before anything is written), and nothing \
            else: a judgment of the picture (content-sideways, content-upside-down) only when the list marks \
            it approved (the review page's export, audit --html) or --only names its code; --only and --skip \
            choose codes, --min-confidence holds back a judgment less sure than it; --dry-run says which \
            judgments it would apply and which fixes it holds back, and why. --journal FILE records every file written, and --undo FILE takes them back, \
            byte for byte. Many files are fixed in parallel; a summary ends on stderr. Exit status: 0 \
            done, 2 a file could not be read, fixed or undone, 64 bad usage. See docs/fix.md.
            """
    )

    @Argument(help: "Photos (JPEG, PNG, WebP, TIFF/DNG/raw), MP4 or QuickTime files.", completion: .file())
    var files: [String] = []

    @Option(
        help: ArgumentHelp("The EXIF orientation to set, 1-8.", valueName: "n"),
        transform: OrientationChoice.parser(for: "--orientation"))
    var orientation: OrientationChoice?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Clockwise degrees, a multiple of 90: 90 sets the rotation, +90 or -90 turns from the current one.",
            valueName: "degrees"),
        transform: RotationChoice.parser(for: "--rotation"))
    var rotation: RotationChoice?

    @Flag(help: SharedHelp.mirrored)
    var mirrored = false

    // The old spellings, kept for scripts; help shows one word for each idea (issue 24).
    @Option(
        name: .customLong("rotate"), parsing: .unconditional, help: ArgumentHelp(visibility: .hidden),
        transform: RotationChoice.parser(for: "--rotate"))
    var rotateAlias: RotationChoice?

    @Flag(name: .customLong("mirror"), help: ArgumentHelp(visibility: .hidden))
    var mirrorAlias = false

    private var rotate: RotationChoice? { rotation ?? rotateAlias }
    private var mirror: Bool { mirrored || mirrorAlias }

    @Flag(help: "Set orientation 1, the identity matrix.")
    var reset = false

    @Flag(help: "Also set a movie matrix (mvhd) that is not the identity to the identity.")
    var resetMovieMatrix = false

    @Option(
        name: .customLong("from-audit"),
        help: ArgumentHelp(
            "Apply the fixes suggested in this audit output, --jsonl or --json (- for standard input).",
            valueName: "file"))
    var fromAudit: String?

    @Option(
        help: ArgumentHelp(
            "With --from-audit: apply only these findings' fixes (codes, comma-separated); names a judgment's code to apply it unapproved.",
            valueName: "codes"))
    var only: String?

    @Option(
        help: ArgumentHelp(
            "With --from-audit: leave these findings' fixes alone (codes, comma-separated).", valueName: "codes"))
    var skip: String?

    @Option(
        name: .customLong("min-confidence"),
        help: ArgumentHelp(
            "With --from-audit: hold back a judgment (content-*) whose confidence is below this, 0-1.", valueName: "x"))
    var minConfidence: Double?

    @Option(help: SharedHelp.journal)
    var journal: String?

    @Option(help: SharedHelp.undo)
    var undo: String?

    @Flag(help: "Show the orientation before and after (with --undo: what would be restored); write nothing.")
    var dryRun = false

    @Flag(help: "Write only the changed bytes into the file itself, instead of replacing it with a fixed copy.")
    var inPlace = false

    @Option(
        name: [.customShort("o"), .customLong("output")],
        help: "Write the fixed file here, leaving the input alone (one input only).")
    var copy: String?

    @Flag(help: SharedHelp.preserveModificationTime)
    var preserveMtime = false

    @OptionGroup var parallel: JobsOption
    @OptionGroup var progress: ProgressOption
    @OptionGroup var jsonOutput: JSONOption

    private var change: OrientationChange? {
        if reset { return .reset }
        if let orientation { return .set(orientation.orientation) }
        if let rotate { return OrientationChange(rotation: rotate, mirrored: mirror) }
        return nil
    }

    private var mode: FileWriteMode {
        if let copy { return .copy(to: copy) }
        return inPlace ? .inPlace : .replace
    }

    /// What of the audit is applied: `--only`, `--skip`, `--min-confidence`.
    private var selection: AuditSelection {
        AuditSelection(
            only: only.map(AuditSelection.codes), skip: skip.map(AuditSelection.codes) ?? [],
            minimumConfidence: minConfidence)
    }

    func validate() throws {
        if fromAudit == nil, let option = [(only, "--only"), (skip, "--skip")].first(where: { $0.0 != nil })?.1 {
            throw ValidationError("\(option) goes with --from-audit: it chooses among the audit's suggested fixes")
        }
        if fromAudit == nil && minConfidence != nil {
            throw ValidationError(
                "--min-confidence goes with --from-audit: it chooses among the audit's suggested fixes")
        }
        if let minConfidence, !(0...1).contains(minConfidence) {
            throw ValidationError("--min-confidence takes a confidence from 0 to 1, not \(minConfidence)")
        }
        if let only, AuditSelection.codes(only).isEmpty {
            throw ValidationError("--only takes at least one finding code (content-sideways,mirrored…)")
        }
        let given = [orientation != nil, rotate != nil, reset].filter { $0 }.count
        if undo != nil || fromAudit != nil {
            if undo != nil && fromAudit != nil { throw ValidationError("--undo and --from-audit exclude each other") }
            let what = undo != nil ? "--undo" : "--from-audit"
            guard files.isEmpty else { throw ValidationError("\(what) takes no files: they come from its input") }
            guard given == 0 && !mirror && !resetMovieMatrix else {
                throw ValidationError(
                    "\(what) takes no orientation options: \(undo != nil ? "the journal" : "the audit") says what to do"
                )
            }
            if copy != nil { throw ValidationError("-o does not go with \(what)") }
            if undo != nil && (journal != nil || inPlace) {
                throw ValidationError("--undo writes each file back as it was fixed: no --journal or --in-place")
            }
            return
        }
        guard !files.isEmpty else { throw ValidationError("give at least one file to fix") }
        // Said first: `fix w.jpg --mirrored` is a mirror asked for without its rotation.
        if mirror && rotate == nil {
            throw ValidationError("--mirrored goes with --rotation (--rotation 0 --mirrored: a mirror alone)")
        }
        if rotation != nil && rotateAlias != nil { throw ValidationError("--rotate is --rotation: give it once") }
        guard given == 1 else { throw ValidationError("give exactly one of --orientation, --rotation and --reset") }
        if copy != nil && files.count != 1 { throw ValidationError("-o goes with exactly one input file") }
        if copy != nil && inPlace { throw ValidationError("-o and --in-place exclude each other") }
        if copy != nil && journal != nil {
            throw ValidationError("-o leaves the input alone: there is nothing to journal")
        }
    }

    func run() throws {
        // `inspect`'s reading of each file is a means here: FFmpeg's own complaints stay quiet.
        DecoderLog.setVerbose(false)
        if let undo {
            return try undoJournal(undo, jobs: parallel.count, dryRun: dryRun, showProgress: progress.showProgress)
        }
        let journalFile = try journal.flatMap { dryRun ? nil : try orExit(JournalFile(path: $0), say: { $0.reason }) }
        let list: [FixJob]
        var unreadable: [String] = []
        var notes: [AuditNote] = []
        if let fromAudit {
            let plan = try orExit(FixBatch.plan(fromAudit: fromAudit, selection: selection))
            (list, unreadable, notes) = (plan.jobs, plan.unreadable, plan.notes)
            plan.repeated.forEach(Terminal.warn)
            unreadable.forEach(Terminal.warn)
        } else {
            guard let change else {
                throw ValidationError("give exactly one of --orientation, --rotation and --reset")
            }
            // Folders walked as `audit` walks them (issue 29: "is a directory").
            let (inputs, notes) = LibraryWalk.expand(files)
            for note in notes where note.kind != .symlinkSkipped {
                Terminal.warn("could not read '\(note.path)': \(note.reason)")
                unreadable.append(note.path)
            }
            if copy != nil && inputs != files {
                throw ValidationError("-o goes with exactly one input file, not a folder")
            }
            list = inputs.map { FixJob(path: $0, change: change, resetMovieMatrix: resetMovieMatrix) }
        }
        let batch = FixBatch(
            mode: mode, dryRun: dryRun, preserveModificationTime: preserveMtime, journal: journalFile,
            jobs: parallel.count)
        let bar = ProgressBar(total: list.count, quiet: !progress.showProgress || list.count < 2)
        let outcomes = batch.run(list) { job, outcome in
            switch outcome {
            case .refused(let reason), .failed(let reason): bar.warn("could not fix '\(job.path)': \(reason)")
            case .fixed(let result, _, _), .alreadyRight(let result):
                for warning in result.warnings { bar.warn("warning: '\(job.path)': \(warning)") }
            }
            bar.advance(job.path)
        }
        bar.finish()
        let results = outcomes.compactMap(\.result)
        if fromAudit != nil && dryRun && !jsonOutput.json {
            // Which judgments it would apply and why, and which suggested fixes it holds back.
            for note in notes { print(note.line(dryRun: true)) }
            print(outcomes.compactMap(\.dryRunLine).joined(), terminator: "")
        } else if jsonOutput.json {
            try printJSON(results, oneFile: fromAudit == nil && files.count == 1 && list.map(\.path) == files)
        } else {
            let terminal = Terminal.standardOutput
            print(results.map { $0.text(terminal.painter) }.joined(separator: "\n"), terminator: "")
        }
        let summary = FixSummary(outcomes, unreadableLines: unreadable.count)
        if list.count > 1 || fromAudit != nil { Terminal.warn(summary.line(dryRun: dryRun)) }
        let held = notes.filter { !$0.applied }.count
        if held > 0 && !(dryRun && !jsonOutput.json) {
            Terminal.warn(
                "held back \(held.counting("suggested fix", plural: "suggested fixes")) (--dry-run says which and why; a judgment "
                    + "needs approval on the review page or its code in --only)")
        }
        if summary.refused + summary.failed > 0 { throw ExitStatus.unreadableInput }
    }
}

/// `fix --undo` and `normalize --undo` (one journal for both): each file's line as it is
/// restored, then the count on stderr.
func undoJournal(_ journal: String, jobs: Int, dryRun: Bool, showProgress: Bool) throws {
    let plan = try orExit(Undo.Plan(journal: journal), say: { $0.reason })
    for warning in plan.warnings { Terminal.warn("warning: \(warning)") }
    let bar = ProgressBar(total: plan.files.count, quiet: !showProgress || plan.files.count < 2)
    let files = Undo.run(plan, jobs: jobs, dryRun: dryRun) { file in
        if let refusal = file.refusal { bar.warn("could not undo '\(file.path)': \(refusal.reason)") }
        bar.advance(file.path)
    }
    bar.finish()
    for (entry, outcome) in files.flatMap(\.undone) { print(Undo.line(entry, outcome)) }
    let summary = Undo.Summary(files)
    Terminal.warn(summary.line)
    if summary.refused > 0 { throw ExitStatus.unreadableInput }
}
