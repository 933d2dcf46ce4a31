import ArgumentParser
import Vidorient
import VidorientContent
import VidorientCore
import VidorientIO

struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Report how each file is stored, how it is displayed, and why.",
        discussion: """
            With --json, one object for one file and an array for several (keys in docs/json.md); nothing \
            on stdout for one file that cannot be read. \
            A file that cannot be read gets one line on stderr; the others are still reported, \
            and the exit status is 2.
            """
    )

    @Argument(
        help:
            "Video or photo files; folders are walked for media as audit walks them; - reads one file from standard input.",
        completion: .file())
    var files: [String]

    @OptionGroup var jsonOutput: JSONOption

    @OptionGroup var verboseOption: VerboseOption
    private var verbose: Bool { verboseOption.verbose }

    @Flag(help: SharedHelp.deep)
    var deep = false

    @OptionGroup var progressOption: ProgressOption

    @OptionGroup var contentOptions: ContentOptions

    @Option(
        name: .customLong("print"),
        help: ArgumentHelp(
            "Print only these fields, tab-separated, one line a file (- when unknown), as `exiftool -T` does: "
                + ReportField.names.joined(separator: ", ") + ".", valueName: "field,..."),
        transform: optionParser("--print", ReportField.parseList))
    var fields: [ReportField]?

    @Option(
        name: .customLong("where"), help: SharedHelp.conditions,
        transform: optionParser("--where", ReportCondition.parse))
    var conditions: [ReportCondition] = []

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("give at least one file to inspect") }
        if fields != nil && jsonOutput.json { throw ValidationError("--print and --json do not combine") }
    }

    func run() throws {
        DecoderLog.setVerbose(verbose)
        var prober = Prober(decodesFirstFrame: deep)
        if verbose {
            prober.fallbackNote = { path, reason in
                Terminal.warn("'\(path)': read with ffmpeg: the box reader does not describe it alone (\(reason))")
            }
        }
        let terminal = Terminal.standardOutput
        // --content: one engine for every file.
        var engine: ContentEngine?
        var contentFailed = false
        if contentOptions.policy != nil {
            do throws(ContentUnavailable) { engine = try ContentJudge.engineForOneFileAtATime() } catch {
                Terminal.warn("content cannot be judged: \(error)")
                contentFailed = true
            }
        }
        let judge = contentOptions.policy.map(ContentJudge.init(policy:))
        // Folders walked as `audit` walks them; `-` is standard input, spooled to a file (a
        // pipe cannot seek), reported as `-`.
        let (inputs, notes) = LibraryWalk.expand(files)
        var unreadable = false
        // --deep asks for the picture to be decoded: a file whose decode ends in an error finding
        // (file-truncated…) could not be read, and exits 2 as a file that could not be opened does.
        var decodeFailed = false
        for note in notes where note.kind != .symlinkSkipped {
            Terminal.warn("could not read '\(note.path)': \(note.reason)")
            unreadable = true
        }
        var spooled: SpooledInput?
        if inputs.contains("-") {
            spooled = try orExit(SpooledInput(), say: { "could not read standard input: \($0.reason)" })
        }
        defer { spooled?.remove() }
        let human: (MediaReport) -> String
        if let fields {
            human = { report in
                let facts = report.facts
                return fields.map { facts.text($0) }.joined(separator: "\t") + "\n"
            }
        } else {
            human = { ReportText(report: $0, painter: terminal.painter).text }
        }
        // The reports are printed when every file is read: until then, a bar on a terminal (issue 29).
        let progress = ProgressBar(total: inputs.count, quiet: !progressOption.showProgress || inputs.count < 2)
        try reportEach(
            inputs, oneFile: files.count == 1 && inputs == files, json: jsonOutput.json,
            separator: fields == nil ? "\n" : "", human: human, keep: { conditions.hold(for: $0.facts) },
            read: progress.finish,
            report: { file in
                let inspected: InspectedFile
                do throws(InputError) {
                    inspected = try prober.inspection(file == "-" ? spooled?.path ?? file : file)
                } catch {
                    progress.warn(file == "-" ? "could not read standard input: \(error.reason)" : error.description)
                    progress.advance(file)
                    return nil
                }
                var report = inspected.report
                if file == "-" { report.path = "-" }
                if let judge, let engine {
                    do throws(InputError) {
                        report.judgeContent(try judge.verdict(of: inspected, engine: engine))
                    } catch {
                        progress.warn("could not judge the content of '\(file)': \(error.reason)")
                        contentFailed = true
                    }
                }
                if deep && report.findings.contains(where: { $0.severity == .error }) { decodeFailed = true }
                progress.advance(file)
                return report
            })
        if contentFailed || unreadable || decodeFailed { throw ExitStatus.unreadableInput }
    }
}
