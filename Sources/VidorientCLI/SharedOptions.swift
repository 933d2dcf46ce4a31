import ArgumentParser
import VidorientIO

/// `--jobs N`: how many files a batch works on at once. One rule for every command: 1-256, the
/// number of cores by default (and at most 256), and each job its own thread
/// (`forEachConcurrently`), so more jobs than cores really run at once (files waiting on a disk).
struct JobsOption: ParsableArguments {
    static let range = 1...256

    @Option(help: "Files worked on at once, 1-256 (default: the number of cores).")
    var jobs: Int?

    /// The number to use.
    var count: Int { jobs ?? min(processorCount, JobsOption.range.upperBound) }

    func validate() throws {
        if let jobs, !JobsOption.range.contains(jobs) { throw ValidationError("--jobs must be 1-256") }
    }
}

/// `--json`: data as JSON on stdout (keys in docs/json.md, docs/fix.md, docs/normalize.md).
struct JSONOption: ParsableArguments {
    @Flag(help: "Print JSON.")
    var json = false
}

/// `--no-progress`: no progress display on stderr (there is none anyway when stderr is not a
/// terminal, `TERM` is `dumb` or `NO_COLOR` is set).
struct ProgressOption: ParsableArguments {
    @Flag(help: "No progress display on stderr.")
    var noProgress = false

    var showProgress: Bool { !noProgress }
}
