import ArgumentParser
import FoundationEssentials
import Vidorient
import VidorientAudit
import VidorientCore
import VidorientIO

struct Report: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make the HTML page of an audit from its JSONL (audit --jsonl).",
        discussion: """
            One self-contained page that works offline: a summary by rule and severity, and the \
            files with findings, to filter by rule, severity and format, sort and search. \
            Exit status: 0 written, 2 the input could not be read or the page not written, 64 bad usage.
            """
    )

    @Argument(help: "Audit JSONL files (- for standard input).", completion: .file())
    var inputs: [String] = []

    @Option(name: .shortAndLong, help: "The page to write.")
    var output: String

    @Flag(help: "As-stored and as-displayed thumbnails of each flagged file, in a folder beside the page.")
    var thumbnails = false

    @OptionGroup var parallel: JobsOption
    @OptionGroup var progress: ProgressOption

    func validate() throws {
        guard !inputs.isEmpty else { throw ValidationError("give the audit JSONL to read (- for standard input)") }
    }

    func run() throws {
        DecoderLog.setVerbose(false)
        let page: HTMLReport
        do { page = try HTMLReport(path: output, thumbnails: thumbnails) } catch {
            Terminal.warn("could not write '\(error.path ?? "")': \(error.reason)")
            throw ExitStatus.unreadableInput
        }
        let decoder = JSONDecoder()
        for input in inputs {
            var lines: PathList
            do { lines = try PathList(path: input, nulSeparated: false) } catch {
                Terminal.warn(error.description)
                throw ExitStatus.unreadableInput
            }
            var number = 0
            while let line = lines.next() {
                number += 1
                guard !line.allSatisfy(\.isWhitespace) else { continue }
                let record: AuditRecord
                do { record = try decoder.decode(AuditRecord.self, from: Data(line.utf8)) } catch {
                    let detail = (error as? DecodingError)?.summary ?? "\(error)"
                    Terminal.warn(
                        "could not read '\(input)': line \(number) is not an audit record (audit --jsonl writes them): "
                            + detail)
                    throw ExitStatus.unreadableInput
                }
                page.add(record)
            }
        }
        try finishPage(page, jobs: parallel.count, showProgress: progress.showProgress)
    }
}
