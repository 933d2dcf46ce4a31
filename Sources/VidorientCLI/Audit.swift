import ArgumentParser
import Vidorient
import VidorientAudit
import VidorientContent
import VidorientCore
import VidorientFix
import VidorientIO

struct Audit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Sweep a media library for wrong or suspicious orientation.",
        discussion: """
            Walks directories (media extensions by default), probes files in parallel and reports \
            each file's findings as it finishes. Read-only. Exit status: 0 nothing at or above \
            --fail-on, 1 something was, 2 files could not be read and nothing else was found, \
            64 bad usage. Rules and formats: docs/audit.md.
            """
    )

    @Argument(help: "Files and directories.", completion: .file())
    var paths: [String] = []

    @Option(help: "Read paths from FILE (- for standard input), one a line.")
    var filesFrom: String?

    @Flag(name: [.customShort("0"), .customLong("null")], help: "With --files-from: paths are NUL-separated.")
    var nulSeparated = false

    @Option(help: "Only files matching this glob (repeatable; matched against the path and the name).")
    var include: [String] = []

    @Option(help: "Skip files and directories matching this glob (repeatable).")
    var exclude: [String] = []

    @Flag(help: "Follow symbolic links (loops are detected and reported).")
    var followSymlinks = false

    @Option(help: "Audit only part K of N, split by a hash of each path: K/N.", transform: Shard.parser(for: "--shard"))
    var shard: Shard?

    @OptionGroup var parallel: JobsOption

    @Option(
        name: .customLong("where"), help: SharedHelp.conditions,
        transform: optionParser("--where", ReportCondition.parseForAudit))
    var conditions: [ReportCondition] = []

    @Option(help: "Seconds before a file's probe gives up and the file is reported: above 0, at most 86400.")
    var timeout: Double = 30

    @Flag(help: SharedHelp.deep)
    var deep = false

    @OptionGroup var contentOptions: ContentOptions

    @Option(
        help: "Exit 1 when a finding is at or above this severity: error, warning or info (default: warning).",
        transform: Severity.parser(for: "--fail-on"))
    var failOn = Severity.warning

    @OptionGroup var jsonOutput: JSONOption

    @Flag(help: "One JSON object per line, per file, as files finish.")
    var jsonl = false

    @Flag(help: "CSV, one row per finding.")
    var csv = false

    @Flag(help: "With --csv: one row per file, findings or none (kind, orientation, size, findings, suggested_fix).")
    var all = false

    @Flag(
        inversion: .prefixedNo,
        help: "Write in path order, each file once those before it are done (default: when stdout is not a pipe).")
    var sort: Bool?

    @Flag(help: "Human output: list info findings too (--json, --jsonl and --csv always have them).")
    var info = false

    // `-v`/`--verbose`, what this flag was called before issue 24 gave -v one meaning everywhere
    // (say more on stderr): still accepted, not in --help.
    @Flag(name: .shortAndLong, help: ArgumentHelp(visibility: .hidden))
    var verbose = false

    @OptionGroup var progressOption: ProgressOption

    @Flag(help: "Keep each file's result in a cache and answer unchanged files from it (docs/audit.md).")
    var cache = false

    @Option(help: "The cache file (implies --cache; default $XDG_CACHE_HOME/vidorient/audit.sqlite).")
    var cachePath: String?

    @Flag(help: "Audit what is in the folders, then keep watching them and audit each new or changed file (inotify).")
    var watch = false

    @Option(help: "With --watch: seconds of quiet after a file is closed before it is audited.")
    var settle: Double = 1

    @Option(
        help: ArgumentHelp(
            "With --watch: run CMD (with /bin/sh) for each finding at or above --fail-on.",
            discussion:
                "$1 is the file, $2 the suggested fix as a command (empty when the audit suggests none), $3 the finding's code, $4 its action (what to do; may be empty)."
        ))
    var exec: String?

    @Option(help: "Also write one self-contained HTML page of the files with findings.")
    var html: String?

    @Option(
        help: ArgumentHelp(
            "Suggestions rejected on the review page (its exported vidorient-rejected.jsonl): not raised again while the file is the same.",
            valueName: "file"))
    var decisions: String?

    @Flag(help: "With --html: as-stored and as-displayed thumbnails of each flagged file, in a folder beside the page.")
    var thumbnails = false

    func validate() throws {
        guard !paths.isEmpty || filesFrom != nil else { throw ValidationError("give paths to audit, or --files-from") }
        if !paths.isEmpty && filesFrom != nil { throw ValidationError("give paths or --files-from, not both") }
        if nulSeparated && filesFrom == nil { throw ValidationError("-0 goes with --files-from") }
        if [jsonOutput.json, jsonl, csv].filter({ $0 }).count > 1 {
            throw ValidationError("choose one of --json, --jsonl, --csv")
        }
        // A day is far beyond any probe; inf or 1e308 would overflow the deadline.
        guard timeout > 0, timeout <= 86400 else {
            throw ValidationError("--timeout must be above 0 and at most 86400 seconds, got \(timeout)")
        }
        if watch && filesFrom != nil { throw ValidationError("--watch takes folders, not --files-from") }
        if watch && jsonOutput.json {
            throw ValidationError("--watch writes --jsonl, --csv or lines, not one --json document")
        }
        if exec != nil && !watch { throw ValidationError("--exec goes with --watch") }
        if html != nil && watch {
            throw ValidationError("--html writes one page at the end; it does not go with --watch")
        }
        if thumbnails && html == nil { throw ValidationError("--thumbnails goes with --html") }
        if all && !csv { throw ValidationError("--all goes with --csv") }
        if sort == true && watch { throw ValidationError("--sort writes at the end; a watch does not end") }
        if let html, (try? OutputDestination(path: html))?.isStandardOutput == true {
            throw ValidationError("--html - would put the page among the records on standard output; name a file")
        }
        guard settle >= 0 else { throw ValidationError("--settle must not be negative") }
    }

    func run() throws {
        DecoderLog.setVerbose(false)
        var options = AuditOptions()
        options.walk.include = include
        options.walk.exclude = exclude
        options.walk.followSymlinks = followSymlinks
        options.walk.shard = shard
        options.jobs = parallel.count
        options.timeout = timeout
        options.deep = deep
        options.failOn = failOn
        options.conditions = conditions
        if let policy = contentOptions.policy {
            do throws(ContentUnavailable) { try Auditor.prepareContent() } catch {
                Terminal.warn("content cannot be judged: \(error)")
                throw ExitStatus.unreadableInput
            }
            options.content = policy
        }
        if let decisions {
            options.decisions = try Self.readDecisions(decisions)
        }
        if cache || cachePath != nil {
            if let path = cachePath ?? AuditCache.defaultPath {
                // The page needs each flagged file's video object, which hits otherwise skip.
                options.cache = AuditCache.open(path: path, fullRecords: html != nil, warn: { Terminal.warn($0) })
            } else {
                Terminal.warn("cache not used: neither XDG_CACHE_HOME nor HOME is set; give --cache-path")
            }
        }

        let format: AuditFormat = jsonOutput.json ? .json : (jsonl ? .jsonl : (csv ? .csv : .human))
        let writer = AuditWriter(
            format: format, showInfo: info || verbose, colors: Terminal.standardOutput.painter.colors, inventory: all)
        if watch { return try runWatch(options: options, writer: writer) }
        let source: Auditor.Source
        if let filesFrom {
            do { source = .list(try PathList(path: filesFrom, nulSeparated: nulSeparated)) } catch {
                Terminal.warn(error.description)
                throw ExitStatus.unreadableInput
            }
        } else {
            source = .walk(paths)
        }
        let page = try html.map { try orExit(HTMLReport(path: $0, thumbnails: thumbnails), say: couldNotWrite) }
        let progress = ProgressLine(enabled: progressOption.showProgress && ProgressBar.allowed)
        let stdoutIsTerminal = isatty(STDOUT_FILENO) == 1
        var first = true
        write(writer.begin())
        let keepsRecords = page != nil
        let sorts = sort ?? SortedRecords.sortsByDefault
        var held = SortedRecords()
        let emit = { (block: [UInt8]) in
            let text = writer.text(of: block, first: first)
            guard !text.isEmpty else { return }
            // Only a terminal shows stdout and stderr on one screen: clear the line first there.
            if stdoutIsTerminal { progress.clear() }
            Terminal.output(text)
            first = false
        }
        let summary = Auditor(options: options).run(
            source,
            // On the worker that audited the file: the text (and, for the page, the record).
            render: { record, chunk in
                writer.render(record, into: &chunk, marked: sorts)
                if keepsRecords { chunk.records.append(record) }
            },
            // The page reads each record: no stored line stands for one there.
            replay: keepsRecords ? nil : writer.replay(marked: sorts),
            ordered: sorts,
            deliver: { chunk in
                for record in chunk.records { page?.add(record) }
                if sorts { held.add(chunk, write: emit) } else { emit(chunk.text) }
            },
            note: { note in
                progress.clear()
                if note.kind != .symlinkSkipped { Terminal.warn(note.message) }
            },
            progress: { progress.show($0) })
        progress.clear()
        // Nothing unless sorted.
        held.finish(write: emit)
        write(writer.end(summary))
        if let decisions = options.decisions {
            let held = decisions.heldBack
            Terminal.warn(
                "held back \(held.counting("rejected suggestion")) (--decisions: \(decisions.count) "
                    + "rejected; a file changed since it was reviewed is audited as usual)")
        }
        if let page {
            try finishPage(page, jobs: options.jobs, showProgress: progressOption.showProgress)
        }
        if summary.exitStatus != 0 { throw ExitCode(summary.exitStatus) }
    }

    /// The decisions file, read whole: a line that is not a record refuses it (exit 2).
    static func readDecisions(_ path: String) throws -> ReviewDecisions {
        let records: [ReviewDecisions.Record] = try orExit(AuditInput.records(at: path))
        let decisions = ReviewDecisions(records)
        if decisions.unidentified > 0 {
            Terminal.warn(
                "warning: \(decisions.unidentified) rejection(s) in '\(path)' say nothing of the file they were about "
                    + "(no reviewed_file: the review page's Export writes it); not used")
        }
        return decisions
    }

    private func write(_ text: String) {
        guard !text.isEmpty else { return }
        print(text, terminator: "")
    }

    /// Watch mode: records are written (and flushed) as files complete, until SIGINT or SIGTERM.
    private func runWatch(options: AuditOptions, writer: AuditWriter) throws {
        let watcher = try orExit(
            Watcher(roots: paths, settle: settle), say: { "could not watch '\($0.path ?? "")': \($0.reason)" })
        watchStopDescriptor = watcher.stopDescriptor
        // A parent may have started us with signals blocked (some process launchers do): unblock
        // the two that stop us, on this thread, which then takes them.
        var stopping = sigset_t()
        sigemptyset(&stopping)
        sigaddset(&stopping, SIGINT)
        sigaddset(&stopping, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &stopping, nil)
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber) { _ in
                var byte: UInt8 = 1
                _ = System.unbufferedWrite(watchStopDescriptor, &byte, 1)
            }
        }
        write(writer.begin())
        fflush(nil)
        do throws(VidorientError) {
            try watch(watcher, options: options, writer: writer)
        } catch {
            options.cache?.flush()
            Terminal.warn("the watch stopped: \(error.reason)")
            throw ExitStatus.unreadableInput
        }
        options.cache?.flush()
    }

    private func watch(_ watcher: Watcher, options: AuditOptions, writer: AuditWriter) throws(VidorientError) {
        let exec = self.exec
        let failOn = options.failOn
        try watcher.run(
            options: options,
            record: { record in
                write(writer.record(record, first: false))
                fflush(nil)
                guard let exec else { return }
                for failure in Watcher.runHooks(exec, for: record, failOn: failOn) {
                    Terminal.warn("could not run --exec: \(failure)")
                }
            },
            event: { event in event.message(roots: paths).map(Terminal.warn) })
    }
}

/// Makes the page's thumbnails (with a progress bar on a terminal) and closes it.
func finishPage(_ page: HTMLReport, jobs: Int, showProgress: Bool) throws {
    if page.thumbnailFolder != nil {
        let bar = ProgressBar(total: page.thumbnailPaths.count, quiet: !showProgress)
        let failed = page.makeThumbnails(jobs: jobs) { _, _ in bar.advance("thumbnails") }
        bar.finish()
        if failed > 0 { Terminal.warn("\(failed) thumbnails could not be made; their rows show no picture") }
    }
    try orExit(page.finish(), say: couldNotWrite)
    // Where the page went, said once (issue 24): the audit's stdout is its records, not this.
    let beside = page.thumbnailFolder.map { ", thumbnails in '\($0)'" } ?? ""
    Terminal.warn("wrote '\(page.path)': \(page.rows) of \(page.files) files with findings\(beside)")
}

/// Where a signal handler writes to end watch mode (a handler cannot capture anything).
nonisolated(unsafe) private var watchStopDescriptor: Int32 = -1

/// A one-line progress report on stderr, redrawn in place; only on a terminal.
final class ProgressLine: @unchecked Sendable {
    // Used only from the audit's serialised callbacks.
    private let enabled: Bool
    private var shown = false

    init(enabled: Bool) {
        self.enabled = enabled
    }

    func show(_ progress: AuditProgress) {
        guard enabled else { return }
        emit("\r\u{1B}[2K" + progress.line)
        shown = true
    }

    func clear() {
        guard shown else { return }
        emit("\r\u{1B}[2K")
        shown = false
    }

    private func emit(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBufferPointer { System.unbufferedWrite(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}
