import ArgumentParser
import Vidorient
import VidorientCore
import VidorientFix
import VidorientIO

struct Normalize: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "normalize",
        abstract: "Turn photos' pixels upright and set their orientation to 1; each shows exactly as before.",
        discussion: """
            JPEG is turned losslessly (libjpeg-turbo moves the DCT coefficients, as jpegtran -perfect); \
            a size that is not a multiple of the MCU is refused unless --trim drops the partial blocks. \
            Every other metadata segment is kept; the EXIF sizes are swapped and its thumbnail turned \
            (or dropped, when it cannot be turned losslessly). PNG and lossless WebP are decoded, turned \
            and re-encoded losslessly, their other chunks kept. Lossy WebP, HEIC, AVIF and TIFF are \
            refused: `vidorient fix` (tag only) is the lossless answer for them, as for videos. The new \
            file is written beside the old one, flushed, read back and renamed over it. --journal FILE keeps a \
            copy of each photo it replaces in FILE.originals/ and records it; --undo FILE (or `fix --undo`) puts \
            them back byte for byte, what --trim dropped included. See docs/normalize.md.
            """
    )

    @Argument(help: "JPEG, PNG or lossless WebP photos.", completion: .file())
    var files: [String] = []

    @Flag(help: "JPEG: drop partial MCU blocks on the edges a turn would move, instead of refusing.")
    var trim = false

    @Flag(help: "Show what would change; write nothing.")
    var dryRun = false

    @Option(
        name: [.customShort("o"), .customLong("output")],
        help: "Write the upright file here, leaving the input alone (one input only).")
    var output: String?

    @Flag(help: SharedHelp.preserveModificationTime)
    var preserveMtime = false

    @Option(help: SharedHelp.journal)
    var journal: String?

    @Option(help: SharedHelp.undo)
    var undo: String?

    @OptionGroup var jsonOutput: JSONOption

    func validate() throws {
        if undo != nil {
            guard files.isEmpty else { throw ValidationError("--undo takes no files: they come from the journal") }
            if trim || output != nil || journal != nil || preserveMtime || jsonOutput.json {
                throw ValidationError("--undo puts each file back as it was: it takes only --dry-run")
            }
            return
        }
        guard !files.isEmpty else { throw ValidationError("give at least one photo to normalize") }
        if output != nil && files.count != 1 { throw ValidationError("-o goes with exactly one input file") }
        if output != nil && journal != nil {
            throw ValidationError("-o leaves the input alone: there is nothing to journal")
        }
    }

    func run() throws {
        DecoderLog.setVerbose(false)
        if let undo { return try undoJournal(undo, jobs: processorCount, dryRun: dryRun, showProgress: true) }
        let journalFile = try journal.flatMap { dryRun ? nil : try orExit(JournalFile(path: $0), say: { $0.reason }) }
        let terminal = Terminal.standardOutput
        // Each photo replaced is journaled around its write, its original kept.
        var record: PhotoNormalizer.Journal? = nil
        if let journalFile {
            record = { plan, write throws(VidorientError) in try journalFile.record(plan, write: write) }
        }
        // Folders walked as `audit` walks them (issue 29: "is a directory").
        let (inputs, notes) = LibraryWalk.expand(files)
        for note in notes where note.kind != .symlinkSkipped {
            Terminal.warn("could not read '\(note.path)': \(note.reason)")
        }
        if output != nil && inputs != files {
            throw ValidationError("-o goes with exactly one input file, not a folder")
        }
        try reportEach(
            inputs, oneFile: files.count == 1 && inputs == files, json: jsonOutput.json,
            human: { $0.text(terminal.painter) },
            report: { file in
                do throws(VidorientError) {
                    return try PhotoNormalizer.normalize(
                        path: file, trim: trim, output: output, dryRun: dryRun, preserveModificationTime: preserveMtime,
                        warn: { Terminal.warn("warning: '\(file)': \($0)") },
                        journal: record)
                } catch {
                    Terminal.warn("could not normalize '\(file)': \(error.reason)")
                    return nil
                }
            })
        if notes.contains(where: { $0.kind != .symlinkSkipped }) { throw ExitStatus.unreadableInput }
    }
}
