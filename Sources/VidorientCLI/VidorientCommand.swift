import ArgumentParser
import VidorientCore

@main
struct VidorientCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vidorient",
        abstract: "Tell which way is up for any video or photo, and act on it.",
        discussion: """
            Orientation is one of the eight EXIF orientations: an optional horizontal mirror, then a \
            clockwise rotation. Exit status: 0 success, 2 an input could not be read or an output (stdout \
            included) not written, 64 bad usage or a number out of range.
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
        main(losslessArguments())
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

/// What `inspect` and `fix` share: each file on its own, a failed one reported by `body` (one
/// stderr line) and skipped; then JSON (an object for one file, an array for several) or the
/// human text; exit status 2 when any failed.
func reportEach<Result: Encodable>(
    _ files: [String], json: Bool, human: (Result) -> String, report body: (String) -> Result?
) throws {
    let results = files.compactMap(body)
    if json {
        let encoder = JSONText()
        print(results.count == 1 && files.count == 1 ? try encoder.encode(results[0]) : try encoder.encode(results))
    } else {
        print(results.map(human).joined(separator: "\n"), terminator: "")
    }
    if results.count < files.count { throw ExitStatus.unreadableInput }
}
