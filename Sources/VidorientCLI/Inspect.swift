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
        // --content: one engine for every file, OpenCV's threads on every core for each pass.
        var engine: ContentEngine?
        var contentFailed = false
        if contentOptions.policy != nil {
            do throws(ContentUnavailable) {
                try ContentEngine.setThreadsPerPass(processorCount)
                engine = try ContentEngine()
            } catch {
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
            do throws(VidorientError) { spooled = try SpooledInput() } catch {
                Terminal.warn("could not read standard input: \(error.reason)")
                throw ExitStatus.unreadableInput
            }
        }
        defer { spooled?.remove() }
        let human: (MediaReport) -> String
        if let fields {
            human = { report in
                let facts = report.facts
                return fields.map { facts.text($0) }.joined(separator: "\t") + "\n"
            }
        } else {
            human = { HumanReport(report: $0, terminal: terminal).text }
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

/// The report as a person reads it: aligned labels, the verdict first, evidence after.
struct HumanReport {
    let report: MediaReport
    let terminal: Terminal

    var text: String {
        var lines = [terminal.paint(report.path.escapingControlCharacters, .bold)]
        func row(_ label: String, _ value: String, style: Terminal.Style = .dim) {
            lines.append("  " + terminal.paint(label.padding(12), style) + value)
        }
        if let photo = report.photo {
            photoRows(photo, row: row)
        } else if let video = report.video {
            row("orientation", orientation(video))
            if let width = video.displayWidth, let height = video.displayHeight {
                row("displayed", "\(width)x\(height) \(video.layout?.rawValue ?? "")")
            }
            let stored = "\(video.codedWidth.map(String.init) ?? "?")x\(video.codedHeight.map(String.init) ?? "?")"
            let sar = video.sampleAspectRatio.map { $0 == "1:1" ? "" : ", sample aspect \($0)" } ?? ""
            row("stored", "\(stored)\(sar), stream \(video.index) (\(video.codec ?? "unknown codec"))")
            row("matrix", matrix(video.matrix))
            row("decided by", decidedBy(video))
            if let camera = video.camera {
                row("camera", "\(camera.rawValue) (\(video.cameraEvidence ?? "no evidence"))")
            }
            row(
                "ffprobe",
                video.ffprobeRotation.map { "rotation \($0) (counter-clockwise, blind to mirroring)" } ?? "no rotation")
        } else {
            row("orientation", "no video stream")
        }
        let format = report.format
        if report.photo == nil {
            var container = format.longName ?? format.name
            if let duration = format.duration { container += ", \(fixed(duration, 3)) s" }
            if let size = format.size { container += ", \(size) bytes" }
            row("container", container)
            for (label, value) in format.captureFacts { row(label, value) }
        }
        if let location = format.location ?? report.photo?.location {
            row(
                "location",
                "\(fixed(location.latitude, 5)), \(fixed(location.longitude, 5))"
                    + (location.altitude.map { ", \(fixed($0, 1)) m" } ?? ""))
        }
        for stream in report.streams { row("stream \(stream.index)", stream.summary.escapingControlCharacters) }
        if let content = report.content { row("content", content.line) }
        for finding in report.findings {
            let style: Terminal.Style =
                finding.severity == .error ? .red : (finding.severity == .warning ? .yellow : .cyan)
            row(
                finding.severity.rawValue, "\(finding.code): \(finding.message.escapingControlCharacters)", style: style
            )
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A photo: the verdict, the sizes, what decided, every other statement, then the camera facts.
    private func photoRows(_ photo: PhotoReport, row: (String, String, Terminal.Style) -> Void) {
        row("orientation", terminal.paint(photo.orientation.phrase, .green), .dim)
        if let width = photo.displayWidth, let height = photo.displayHeight {
            row("displayed", "\(width)x\(height) \(photo.layout?.rawValue ?? "")", .dim)
        }
        let stored = "\(photo.storedWidth.map(String.init) ?? "?")x\(photo.storedHeight.map(String.init) ?? "?")"
        var coding = [photo.formatDetail ?? photo.format]
        if let codec = photo.codec, !coding[0].contains(codec) { coding.append(codec) }
        row("stored", "\(stored), \(coding.joined(separator: ", "))", .dim)
        let decided: String =
            switch photo.orientationSource {
            case .heif: "HEIF irot/imir"
            case .exif: "EXIF Orientation"
            case .xmp: "XMP tiff:Orientation"
            case .none: "nothing: no source rotates or mirrors"
            }
        row("decided by", decided + (photo.sources.first.map { " (\($0.location))" } ?? ""), .dim)
        for source in photo.sources.dropFirst() {
            let value = source.value.map { "\($0)" } ?? "?"
            row("also", "\(source.source.rawValue) \(value) at \(source.location)", .dim)
        }
        if let camera = photo.camera {
            row("camera", "\(camera.rawValue) (\(photo.cameraEvidence ?? "no evidence"))", .dim)
        }
        let device = [photo.make, photo.model].compactMap { $0 }.joined(separator: " ")
        if !device.isEmpty { row("device", device, .dim) }
        if let lens = photo.lensModel { row("lens", lens, .dim) }
        // ISO 8601, as a video's (issue 24: EXIF's `2024:05:06 07:08:09` beside a video's ISO date).
        if let date = photo.captureDate { row("taken", date, .dim) }
        for preview in photo.previews {
            let size = preview.width.flatMap { w in preview.height.map { "\(w)x\($0)" } } ?? "size unknown"
            row("preview", "\(preview.codec) \(size) (\(preview.location))", .dim)
        }
        if !photo.auxiliary.isEmpty { row("auxiliary", photo.auxiliary.joined(separator: ", "), .dim) }
        if let motion = photo.motionVideo {
            row(
                "motion video", "\(orientation(motion)), \(motion.displayWidth ?? 0)x\(motion.displayHeight ?? 0)", .dim
            )
        }
        if let size = report.format.size { row("file", "\(size) bytes", .dim) }
    }

    private func orientation(_ video: VideoReport) -> String {
        guard let rotation = video.rotation else { return terminal.paint("unknown (invalid matrix)", .red) }
        return terminal.paint(Orientation.phrase(rotation: rotation, mirrored: video.mirrored == true), .green)
    }

    private func decidedBy(_ video: VideoReport) -> String {
        switch video.orientationSource {
        case .container: "container display matrix (tkhd)"
        case .sei: "H.264/HEVC display-orientation SEI"
        case .exif: "EXIF Orientation"
        case .none: "nothing: no source carries an orientation"
        }
    }

    private func matrix(_ m: [Double]) -> String {
        stride(from: 0, to: 9, by: 3).map { m[$0..<$0 + 3].map(number).joined(separator: " ") }.joined(separator: " | ")
    }

    private func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e12 ? String(Int(value)) : fixed(value, 4)
    }

    private func fixed(_ value: Double, _ digits: Int) -> String { value.text(decimals: digits) }
}

extension String {
    func padding(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
