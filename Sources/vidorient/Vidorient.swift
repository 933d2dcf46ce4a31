import ArgumentParser
import VidorientCore

@main
struct Vidorient: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vidorient",
        abstract: "Tell which way is up for any video or photo, and act on it.",
        discussion: """
            Orientation is one of the eight EXIF orientations: an optional horizontal mirror, then a \
            clockwise rotation. Exit status: 0 success, 2 an input could not be read, 64 bad usage.
            """,
        version: "0.1.0",
        subcommands: [Inspect.self, Thumbnail.self, Fix.self, Audit.self, Report.self, OrientationCommand.self]
    )
}

/// Exit statuses shared by every command.
enum ExitStatus {
    static let unreadableInput = ExitCode(2)
}

/// What `inspect` and `fix` share: each file on its own, a failed one reported by `body` (one
/// stderr line) and skipped; then JSON (an object for one file, an array for several) or the
/// human text; exit status 2 when any failed.
func reportEach<Result: Encodable>(
    _ files: [String], json: Bool, human: (Result) -> String, _ body: (String) -> Result?
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
