import ArgumentParser
import VidorientCore

@main
struct VidorientCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vidorient",
        abstract: "Tell which way is up for any video or photo, and act on it.",
        discussion: """
            Orientation is one of the eight EXIF orientations: an optional horizontal mirror, then a \
            clockwise rotation. Exit status: 0 success, 1 audit found problems (at or above --fail-on), 2 an \
            input could not be read or an output (stdout included) not written, 64 bad usage or a number out \
            of range. A flag means one thing in every command: --json prints JSON, -v says more on stderr, \
            -q hides the progress bar, --rotation and --mirrored are the orientation's words, and an \
            orientation reads "EXIF 6: rotate 90° clockwise". A file cut short or damaged is said \
            (file-truncated, file-damaged) by every command.
            """,
        version: "0.1.0",
        subcommands: [
            Inspect.self, Thumbnail.self, Fix.self, Normalize.self, Audit.self, Report.self, OrientationCommand.self,
        ]
    )

    /// Every way out (success, a finding, an error, `--help`) passes through `exit`, so the
    /// check that the output really was written is registered to run there: output that could
    /// not be written is exit status 2, never success.
    static func main() {
        atexit { Terminal.checkOutputWritten() }
        main(helpTopic(losslessArguments()))
    }

    /// `help TOPIC` for a topic that is not a command: `watch` is a mode of `audit` (`audit
    /// --watch`), whose help it shows; anything else is bad usage, where ArgumentParser would
    /// show the top-level help and exit 0 (issue 29).
    static func helpTopic(_ arguments: [String]) -> [String] {
        guard arguments.count >= 2, arguments[0] == "help" else { return arguments }
        let names = configuration.subcommands.map { $0._commandName } + ["help"]
        if names.contains(arguments[1]) { return arguments }
        if arguments[1] == "watch" {
            Terminal.warn("watching is 'vidorient audit --watch': audit's help follows")
            return ["help", "audit"] + arguments.dropFirst(2)
        }
        Terminal.warn("no command '\(arguments[1])': the commands are \(names.dropLast().joined(separator: ", "))")
        Self.exit(withError: ExitCode(64))
    }

    /// The arguments as bytes, decoded losslessly (PathBytes.swift): `CommandLine.arguments`
    /// repairs a name that is not UTF-8 with U+FFFD, which then names no file.
    static func losslessArguments() -> [String] {
        (1..<Int(CommandLine.argc)).map { index in
            guard let argument = CommandLine.unsafeArgv[index] else { return "" }
            return String(pathBytes: UnsafeRawBufferPointer(start: argument, count: strlen(argument)))
        }
    }
}

/// Exit statuses shared by every command. The flush of standard output, and exit status 2 when
/// it or a diagnostic could not be written, are `Terminal.checkOutputWritten`'s.
enum ExitStatus {
    static let unreadableInput = ExitCode(2)
}

/// `say` for an output that could not be written: `could not write 'PATH': REASON`.
func couldNotWrite(_ error: VidorientError) -> String { "could not write '\(error.path ?? "")': \(error.reason)" }

/// Runs `body`; an error ends the command with exit status 2, said in one line on stderr (`say`'s
/// words, the error's description by default).
func orExit<Value>(
    _ body: @autoclosure () throws(VidorientError) -> Value, say: (VidorientError) -> String = { $0.description }
) throws -> Value {
    do { return try body() } catch {
        Terminal.warn(say(error))
        throw ExitStatus.unreadableInput
    }
}

/// The JSON shape of a per-file command (`inspect`, `normalize`, `fix`), the one rule: one file
/// asked for gives its object, or nothing on stdout when it could not be done (never `[]`, which a
/// consumer's `jq .video` would fail on); several, or a batch, give the array of those done.
func printJSON<Result: Encodable>(_ results: [Result], oneFile: Bool) throws {
    let encoder = JSONText()
    if oneFile {
        if let only = results.first { print(try encoder.encode(only)) }
    } else {
        print(try encoder.encode(results))
    }
}

/// What `inspect` and `normalize` share: each file on its own, a failed one reported by `body` (one
/// stderr line) and skipped; then JSON (an object for one file, an array for several) or the
/// human text; exit status 2 when any failed.
func reportEach<Result: Encodable>(
    _ files: [String], oneFile: Bool? = nil, json: Bool, separator: String = "\n", human: (Result) -> String,
    keep: (Result) -> Bool = { _ in true }, read: () -> Void = {}, report body: (String) -> Result?
) throws {
    let results = files.compactMap(body)
    read()  // every file read: a progress bar goes before the results are printed
    let kept = results.filter(keep)
    if json {
        // A folder given alone is several files, even when it holds one.
        try printJSON(kept, oneFile: oneFile ?? (files.count == 1))
    } else {
        print(kept.map(human).joined(separator: separator), terminator: "")
    }
    if results.count < files.count { throw ExitStatus.unreadableInput }
}
