import ArgumentParser
import FoundationEssentials
import Vidorient
import VidorientAudit
import VidorientCore
import VidorientFix
import VidorientIO

struct Report: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Make the HTML page of an audit from its output (audit --jsonl, or one audit --json document).",
        discussion: """
            One self-contained page that works offline: a summary by rule and severity, and the \
            files with findings, to filter by rule, severity and format, sort and search. \
            Exit status: 0 written, 2 the input could not be read or the page not written, 64 bad usage.
            """
    )

    @Argument(help: "Audit output: JSONL or one --json document a file (- for standard input).", completion: .file())
    var inputs: [String] = []

    @Option(name: .shortAndLong, help: "The page to write.")
    var output: String

    @Flag(help: "As-stored and as-displayed thumbnails of each flagged file, in a folder beside the page.")
    var thumbnails = false

    @OptionGroup var parallel: JobsOption
    @OptionGroup var progress: ProgressOption

    func validate() throws {
        guard !inputs.isEmpty else { throw ValidationError("give the audit output to read (- for standard input)") }
    }

    func run() throws {
        DecoderLog.setVerbose(false)
        // Every input is read whole before the page is opened: an input that is not an audit
        // leaves no page behind (nor truncates one that was there).
        var records: [AuditRecord] = []
        for input in inputs {
            records += try orExit(AuditInput.records(at: input))
        }
        let page = try orExit(HTMLReport(path: output, thumbnails: thumbnails), say: couldNotWrite)
        records.forEach(page.add)
        try finishPage(page, jobs: parallel.count, showProgress: progress.showProgress)
    }
}
