import ArgumentParser
import VidorientIO

/// `--jobs N`: how many files a batch works on at once. One rule for every command: 1-256, the
/// cores this process may run on by default (`Processors.available`: its affinity mask, so
/// taskset, a cgroup cpuset or Slurm's `--cpus-per-task`; at most 256), and each job its own thread
/// (`forEachConcurrently`), so more jobs than cores wait on a disk at once (work on the cores: `CorePlaces`).
struct JobsOption: ParsableArguments {
    static let range = 1...256

    @Option(help: "Files worked on at once, 1-256 (default: the cores this process may use).")
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
    /// One flag for every command (issue 24: thumbnail had `-q/--quiet`, the others
    /// `--no-progress`); each name works everywhere.
    @Flag(
        name: [.customLong("no-progress"), .customShort("q"), .customLong("quiet")],
        help: "No progress bar on stderr (there is none anyway when stderr is not a terminal or NO_COLOR is set).")
    var noProgress = false

    var showProgress: Bool { !noProgress }
}

/// `-v`/`--verbose`: one meaning on every command that has it (issue 24: it showed FFmpeg's
/// warnings in inspect but info findings in audit, whose flag is now `--info`): say more on
/// stderr about how files are read, FFmpeg's own warnings included.
struct VerboseOption: ParsableArguments {
    @Flag(
        name: .shortAndLong,
        help: "Say more on stderr about how each file is read, FFmpeg's own warnings included.")
    var verbose = false
}

/// The help of flags two commands share, written once (issue 24: one flag, one meaning, the
/// same words; held by HelpVocabularyTests).
enum SharedHelp {
    static let deep: ArgumentHelp =
        "Decode the first video frame (an H.264/HEVC orientation SEI is otherwise read without decoding) and a photo's picture: slower."
    static let preserveModificationTime: ArgumentHelp =
        "Keep the file's modification and access times (as exiftool's -P does)."
    static let mirrored: ArgumentHelp = "With --rotation: mirror horizontally first."
    static let journal = ArgumentHelp(
        "Append a record of every file written to this JSONL journal, for --undo (normalize keeps each original in FILE.originals/).",
        valueName: "file")
    static let undo = ArgumentHelp(
        "Undo what this journal records (fixes and normalizes alike), newest first, byte for byte.",
        valueName: "journal")
    static let conditions = ArgumentHelp(
        "Only the files whose FIELD (inspect --print's; audit has no duration) compares so with VALUE, as exiftool's -if (repeatable, all must hold): = != < > <= >=, ~ and !~ for a glob.",
        valueName: "field op value")
}
