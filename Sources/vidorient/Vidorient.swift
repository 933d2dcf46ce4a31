import ArgumentParser

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
        subcommands: [Inspect.self, Thumbnail.self, Fix.self, Audit.self, OrientationCommand.self]
    )
}

/// Exit statuses shared by every command.
enum ExitStatus {
    static let unreadableInput = ExitCode(2)
}
