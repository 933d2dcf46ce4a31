import ArgumentParser
import Vidorient
import VidorientAudit
import VidorientCore
import VidorientIO

struct Thumbnail: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbnail",
        abstract: "Write upright thumbnails, contact sheets or stored-versus-displayed comparisons.",
        discussion: """
            The orientation applied is the one `inspect` reports. Inputs may be files or \
            directories (walked for media files). Files run in parallel; a file that cannot be \
            read is reported on stderr, nothing is written for it, the others go on, and the \
            exit status is 2. Without --width, --height or --size a picture is at most 320 pixels \
            a side (--full-size: its displayed size). A damaged or truncated input is written all \
            the same, with a warning line on stderr; the exit status stays 0.
            """
    )

    @Argument(help: "Videos, photos or directories.", completion: .file())
    var inputs: [String]

    @Option(name: [.customShort("o"), .customLong("output")], help: "Write the picture here (one input only).")
    var output: String?

    @Option(help: "Output directory, for any number of inputs.")
    var outDir: String?

    @Option(
        help:
            "Output name in --out-dir: {stem} (input name without extension), {name}, {parent}, {relpath} (its folder below the one given), {index}, {ext}.",
        transform: OutputNameTemplate.parser(for: "--name"))
    var name = OutputNameTemplate.standard

    // Unconditional, so that `--at -1` reaches `validate` and is told the range.
    @Option(
        parsing: .unconditional,
        help:
            "When: seconds (0-1000000), [HH:]MM:SS[.ms], or a percentage such as 25%. Default: a representative frame.",
        transform: TimePoint.parser(for: "--at"))
    var at: TimePoint?

    @Flag(help: "Decode to the exact time instead of the keyframe at or before it.")
    var exact = false

    // `.unconditional`: `--width -5` is a width (refused as out of range), not a missing value.
    @Option(
        parsing: .unconditional,
        help:
            "Width in pixels (the height follows the displayed aspect). Without --width, --height or --size: at most \(Thumbnail.defaultLargestSide) pixels a side."
    )
    var width: Int?

    @Option(parsing: .unconditional, help: "Height in pixels (the width follows the displayed aspect).")
    var height: Int?

    @Option(
        help: "Fit inside WxH, keeping the displayed aspect.",
        transform: optionParser("--size") { text throws(ValueError) in
            try PixelSize.parse(text, largestSide: ThumbnailGeometry.maximumSide)
        })
    var size: PixelSize?

    @Flag(help: "The picture at its displayed size, instead of at most \(Thumbnail.defaultLargestSide) pixels a side.")
    var fullSize = false

    /// The longest side of a picture no size was asked for: small, as thumbnailers make them
    /// (ffmpegthumbnailer and vipsthumbnail: 128), and the size of the contact sheet's tiles.
    static let defaultLargestSide = 320

    @Option(
        help: "png or jpg. Default: from the output's extension, else png.",
        transform: ImageFormat.parser(for: "--format"))
    var format: ImageFormat?

    @Option(help: "JPEG quality, 1-100.")
    var quality = 90

    @Flag(help: "Render the stored pixels, without the orientation.")
    var asStored = false

    @Flag(help: "Stored and displayed side by side, labelled.")
    var compare = false

    @Option(
        help: "A contact sheet of CxR evenly spaced frames, for example 4x3.",
        transform: ContactSheetGrid.parser(for: "--grid"))
    var grid: ContactSheetGrid?

    @OptionGroup var parallel: JobsOption
    @OptionGroup var jsonOutput: JSONOption

    @OptionGroup var verboseOption: VerboseOption
    private var verbose: Bool { verboseOption.verbose }

    @OptionGroup var progressOption: ProgressOption

    private var box: (width: Int?, height: Int?) { size.map { ($0.width, $0.height) } ?? (width, height) }

    /// `--format`, else the output's extension, else PNG.
    private var imageFormat: ImageFormat { format ?? output.flatMap(ImageFormat.init(fileName:)) ?? .png }

    func validate() throws {
        guard !inputs.isEmpty else { throw ValidationError("give at least one input") }
        guard (output == nil) != (outDir == nil) else {
            throw ValidationError("give exactly one of -o OUT and --out-dir DIR")
        }
        if output != nil, inputs.count > 1 { throw ValidationError("-o takes one input; use --out-dir for several") }
        if inputs.contains("-") && output == nil {
            throw ValidationError("- (standard input) goes with -o: it has no name to name a thumbnail after")
        }
        if size != nil && (width != nil || height != nil) {
            throw ValidationError("--size replaces --width and --height")
        }
        if fullSize && (size != nil || width != nil || height != nil) {
            throw ValidationError("--full-size does not go with --width, --height or --size")
        }
        for (flag, value) in [("--width", width), ("--height", height)] {
            if let value, !(1...16384).contains(value) { throw ValidationError("\(flag) must be 1-16384") }
        }
        if [compare, asStored, grid != nil].filter({ $0 }).count > 1 {
            throw ValidationError("--compare, --as-stored and --grid do not combine")
        }
        // A picture streamed (`-o -`, a FIFO, a device) is PNG unless --format says otherwise.
        let streamed = outputDestination?.isStream == true
        if jsonOutput.json, outputDestination?.isStandardOutput == true {
            throw ValidationError("-o - writes the picture to standard output, where --json would go too")
        }
        if format == nil, !streamed, let output, ImageFormat(fileName: output) == nil {
            throw ValidationError("cannot tell the format from '\(output)': use a .png or .jpg name, or --format")
        }
        guard (1...100).contains(quality) else { throw ValidationError("--quality must be 1-100") }
    }

    /// Where `-o` leads (`OutputDestination`); nil without `-o`, or when it cannot be told yet
    /// (the write then says why).
    private var outputDestination: OutputDestination? { output.flatMap { try? OutputDestination(path: $0) } }

    private var destination: ThumbnailBatch.Destination {
        if let outDir { return .folder(outDir, names: name) }
        return .file(output ?? "")
    }

    private var layout: ThumbnailBatch.Layout {
        if let grid { return .contactSheet(grid) }
        return compare ? .comparison : .frame
    }

    func run() throws {
        DecoderLog.setVerbose(verbose)
        let batch: ThumbnailBatch
        // `-` is standard input, copied to a temporary file first (a pipe cannot seek), as inspect does.
        var spooled: SpooledInput?
        if inputs == ["-"] {
            spooled = try orExit(SpooledInput(), say: { "could not read standard input: \($0.reason)" })
        }
        defer { spooled?.remove() }
        let spooledPath = spooled?.path
        let shownName: @Sendable (String) -> String = { input in input == spooledPath ? "-" : input }
        do {
            batch = try ThumbnailBatch(
                inputs: spooled.map { [$0.path] } ?? inputs, destination: destination, format: imageFormat,
                layout: layout)
        } catch {
            throw ValidationError(error.description)
        }
        var failed = false
        for note in batch.notes where note.kind != .symlinkSkipped {
            Terminal.warn("could not read '\(note.path)': \(note.reason)")
            failed = true
        }
        if let outDir {
            try orExit(OutputFile.prepareFolder(outDir))
            try orExit(batch.prepareFolders())
        }
        if layout != .frame, let problem = Thumbnailer.captionFontProblem { Terminal.warn(problem) }

        let unsized = box.width == nil && box.height == nil && !fullSize
        let request = ThumbnailRequest(
            at: at, exact: exact, width: box.width, height: box.height, asStored: asStored,
            largestSide: unsized ? Thumbnail.defaultLargestSide : nil)
        let progress = ProgressBar(total: batch.jobs.count, quiet: !progressOption.showProgress || batch.jobs.count < 2)
        var (written, failures) = batch.makeAll(request: request, quality: quality, jobs: parallel.count) {
            job, result in
            switch result {
            case .success(let written):
                // Written all the same, as viewers and vipsthumbnail show such files; said, so
                // that a grey half is not taken for the picture.
                for finding in written.findings {
                    progress.warn("warning: '\(shownName(written.input))': \(finding.code): \(finding.message)")
                }
                if let note = written.note { progress.warn("note: '\(shownName(written.input))': \(note)") }
            case .failure(let error): progress.warn(String(describing: error))
            }
            progress.advance(job.input)
        }
        progress.finish()
        // Standard input is `-` in what is printed, JSON included, not the spool's /proc path.
        for index in written.indices { written[index].input = shownName(written[index].input) }
        if jsonOutput.json {
            print(try JSONText().encode(written))
        } else {
            // With the picture on standard output, nothing else goes there: the line goes to stderr.
            let toStandardOutput = outputDestination?.isStandardOutput == true
            for item in written { (toStandardOutput ? Terminal.warn : { print($0) })(item.line) }
        }
        if failed || failures > 0 { throw ExitStatus.unreadableInput }
    }
}
