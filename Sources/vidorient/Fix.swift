import ArgumentParser
import VidorientCore
import VidorientISOBMFF


struct Fix: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Set the orientation of MP4 and QuickTime files by rewriting only their display matrices.",
        discussion: """
            Give exactly one of --orientation N (EXIF 1-8), --rotate DEG [--mirror] or --reset. \
            --rotate 90 sets a 90° clockwise rotation; a sign, as in --rotate +90 or --rotate -90, turns \
            the picture a further 90° clockwise or counter-clockwise from how it is shown now (--mirror \
            then mirrors what is shown first). Only the 36 matrix bytes of each video track's tkhd box \
            change, and the movie's mvhd matrix with --reset-movie-matrix; media data is never touched. \
            By default the file is copied to a temporary file in its folder, fixed, flushed, checked and \
            renamed over the original; --in-place writes just the changed bytes. See docs/fix.md.
            """
    )

    @Argument(help: "MP4 or QuickTime files.", completion: .file())
    var files: [String]

    @Option(help: ArgumentHelp("The EXIF orientation to set, 1-8.", valueName: "n"))
    var orientation: Int?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Clockwise degrees, a multiple of 90: 90 sets the rotation, +90 or -90 turns from the current one.",
            valueName: "degrees"))
    var rotate: String?

    @Flag(help: "With --rotate: mirror horizontally before rotating.")
    var mirror = false

    @Flag(help: "Set orientation 1, the identity matrix.")
    var reset = false

    @Flag(help: "Also set a movie matrix (mvhd) that is not the identity to the identity.")
    var resetMovieMatrix = false

    @Flag(help: "Show the orientation before and after; write nothing.")
    var dryRun = false

    @Flag(help: "Write only the changed bytes into the file itself, instead of replacing it with a fixed copy.")
    var inPlace = false

    @Option(name: [.customShort("o"), .customLong("output")], help: "Write the fixed file here, leaving the input alone (one input only).")
    var output: String?

    @Flag(help: "Print JSON.")
    var json = false

    private var change: OrientationChange? {
        if reset { return .reset }
        if let orientation { return Orientation(exif: orientation).map { .set($0) } }
        if let rotate { return OrientationChange(rotate: rotate, mirrored: mirror) }
        return nil
    }

    private var mode: MatrixFix.WriteMode {
        if let output { return .copy(to: output) }
        return inPlace ? .inPlace : .replace
    }

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("give at least one file to fix") }
        let given = [orientation != nil, rotate != nil, reset].filter { $0 }.count
        guard given == 1 else { throw ValidationError("give exactly one of --orientation, --rotate and --reset") }
        if mirror && rotate == nil { throw ValidationError("--mirror goes with --rotate") }
        if let orientation, Orientation(exif: orientation) == nil {
            throw ValidationError("--orientation takes an EXIF orientation, 1 to 8")
        }
        if rotate != nil && change == nil {
            throw ValidationError("--rotate takes a multiple of 90 degrees, such as 90, 270, +90 or -90")
        }
        if output != nil && files.count != 1 { throw ValidationError("-o goes with exactly one input file") }
        if output != nil && inPlace { throw ValidationError("-o and --in-place exclude each other") }
    }

    func run() throws {
        guard let change else { throw ValidationError("give exactly one of --orientation, --rotate and --reset") }
        let terminal = Terminal.standardOutput
        try reportEach(files, json: json, human: { FixReport(result: $0, terminal: terminal).text }) { file in
            do throws(ISOBMFFError) {
                let result = try MatrixFix.fix(
                    path: file, change: change, resetMovieMatrix: resetMovieMatrix, mode: mode, dryRun: dryRun)
                for warning in result.warnings { Terminal.warn("warning: '\(file)': \(warning)") }
                return result
            } catch {
                Terminal.warn("could not fix '\(file)': \(error.reason)")
                return nil
            }
        }
    }
}

/// One file's fix as a person reads it: each changed matrix before and after, then what was written.
struct FixReport {
    let result: FixResult
    let terminal: Terminal

    var text: String {
        var lines = [terminal.paint(result.path, .bold)]
        func row(_ label: String, _ value: String) {
            lines.append("  " + terminal.paint(label.padding(10), .dim) + value)
        }
        for change in result.changes {
            let label = change.trackID.map { "track \($0)" } ?? "movie"
            row(label, "\(orientation(change.before)) -> \(terminal.paint(orientation(change.after), .green))")
            row("matrix", "\(matrix(change.before.matrix)) -> \(matrix(change.after.matrix))")
        }
        let changed = "\(result.bytesChanged) byte\(result.bytesChanged == 1 ? "" : "s") changed"
        if result.dryRun {
            row("dry run", "\(result.bytesChanged) byte\(result.bytesChanged == 1 ? "" : "s") would change; nothing written")
        } else if let written = result.writtenPath {
            row("written", "\(written) (\(changed)\(result.verified ? ", verified" : ""))")
        } else {
            row("unchanged", "already as asked; nothing written")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func orientation(_ state: FixResult.State) -> String {
        if let exif = state.exifOrientation, let orientation = Orientation(exif: exif) {
            return "EXIF \(exif) (\(orientation.summary))"
        }
        return state.rotation.map { "not one of the eight (rotates \(number($0))°)" } ?? "not invertible"
    }

    private func matrix(_ m: [Double]) -> String {
        stride(from: 0, to: 9, by: 3).map { m[$0..<$0 + 3].map(number).joined(separator: " ") }.joined(separator: " | ")
    }

    private func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e12 ? String(Int(value)) : String((value * 10000).rounded() / 10000)
    }
}
