import ArgumentParser
import VidorientAudit
import VidorientCore
import VidorientFFmpeg

#if canImport(Glibc)
import Glibc
#endif

struct Audit: ParsableCommand {
    static let configuration = CommandConfiguration(
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

    @Option(help: "Audit only part K of N, split by a hash of each path: K/N.")
    var shard: String?

    @Option(help: "Files probed at once (default: the number of cores).")
    var jobs: Int?

    @Option(help: "Seconds before a file's probe gives up and the file is reported.")
    var timeout: Double = 30

    @Flag(help: "Decode each video's first frame (finds H.264/HEVC orientation SEI): slower.")
    var deep = false

    @Option(help: "Exit 1 when a finding is at or above this severity: error, warning or info.")
    var failOn = "warning"

    @Flag(help: "One JSON document.")
    var json = false

    @Flag(help: "One JSON object per line, per file, as files finish.")
    var jsonl = false

    @Flag(help: "CSV, one row per finding.")
    var csv = false

    @Flag(name: .shortAndLong, help: "Human output: list info findings too.")
    var verbose = false

    @Flag(help: "No progress line on stderr.")
    var noProgress = false

    func validate() throws {
        guard !paths.isEmpty || filesFrom != nil else { throw ValidationError("give paths to audit, or --files-from") }
        if !paths.isEmpty && filesFrom != nil { throw ValidationError("give paths or --files-from, not both") }
        if nulSeparated && filesFrom == nil { throw ValidationError("-0 goes with --files-from") }
        if [json, jsonl, csv].filter({ $0 }).count > 1 { throw ValidationError("choose one of --json, --jsonl, --csv") }
        if let shard, Shard(shard) == nil { throw ValidationError("--shard must be K/N with 1 <= K <= N, got '\(shard)'") }
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
        guard Severity(rawValue: failOn) != nil else { throw ValidationError("--fail-on must be error, warning or info") }
    }

    func run() throws {
        FFmpegLog.setVerbose(false)
        var options = AuditOptions()
        options.walk.include = include
        options.walk.exclude = exclude
        options.walk.followSymlinks = followSymlinks
        options.walk.shard = shard.flatMap(Shard.init)
        options.jobs = jobs ?? processorCount
        options.timeout = timeout
        options.deep = deep
        options.failOn = Severity(rawValue: failOn)!

        let format: AuditFormat = json ? .json : (jsonl ? .jsonl : (csv ? .csv : .human))
        let writer = AuditWriter(format: format, showInfo: verbose, colors: Terminal.standardOutput.colors)
        let source: Auditor.Source
        if let filesFrom {
            do { source = .list(try PathList(path: filesFrom, nulSeparated: nulSeparated)) } catch {
                Terminal.warn(error.description)
                throw ExitStatus.unreadableInput
            }
        } else {
            source = .walk(paths)
        }
        let progress = ProgressLine(enabled: !noProgress && ProgressBar.allowed)
        let stdoutIsTerminal = isatty(STDOUT_FILENO) == 1
        var first = true
        write(writer.begin())
        let summary = Auditor(options: options).run(
            source,
            record: { record in
                let text = writer.record(record, first: first)
                // Only a terminal shows stdout and stderr on one screen: clear the line first there.
                if !text.isEmpty && stdoutIsTerminal { progress.clear() }
                write(text)
                first = false
            },
            note: { note in
                progress.clear()
                if note.kind != .symlinkSkipped { Terminal.warn("skipped '\(note.path)': \(note.reason)") }
            },
            progress: { progress.show($0) })
        progress.clear()
        write(writer.end(summary))
        if summary.exitStatus != 0 { throw ExitCode(summary.exitStatus) }
    }

    private func write(_ text: String) {
        guard !text.isEmpty else { return }
        print(text, terminator: "")
    }
}

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
        var line = "\(progress.done)"
        line += progress.walkFinished ? "/\(progress.found) files" : " files (\(progress.found) found)"
        line += ", \(Int(progress.filesPerSecond.rounded())) files/s"
        if let remaining = progress.remaining {
            let seconds = Int(remaining.rounded())
            line += ", ETA \(seconds / 60):" + (seconds % 60 < 10 ? "0" : "") + "\(seconds % 60)"
        }
        emit("\r\u{1B}[2K" + line)
        shown = true
    }

    func clear() {
        guard shown else { return }
        emit("\r\u{1B}[2K")
        shown = false
    }

    private func emit(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBufferPointer { Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}
