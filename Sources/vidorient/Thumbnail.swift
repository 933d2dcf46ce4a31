import ArgumentParser
import Synchronization
import VidorientAudit
import VidorientCore
import VidorientFFmpeg
import VidorientText

#if canImport(Glibc)
import Glibc
#endif

struct Thumbnail: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write upright thumbnails, contact sheets or stored-versus-displayed comparisons.",
        discussion: """
            The orientation applied is the one `inspect` reports. Inputs may be files or \
            directories (walked for media files). Files run in parallel; a file that cannot be \
            read is reported on stderr, nothing is written for it, the others go on, and the \
            exit status is 2.
            """
    )

    @Argument(help: "Videos, photos or directories.", completion: .file())
    var inputs: [String]

    @Option(name: [.customShort("o"), .customLong("output")], help: "Output file (one input only).")
    var output: String?

    @Option(help: "Output directory, for any number of inputs.")
    var outDir: String?

    @Option(help: "Output name in --out-dir: {stem} (input name without extension), {name}, {parent}, {index}, {ext}.")
    var name = "{stem}.{ext}"

    // Unconditional, so that `--at -1` reaches `validate` and is told the range.
    @Option(
        parsing: .unconditional,
        help: "When: seconds (0-1000000), [HH:]MM:SS[.ms], or a percentage such as 25%. Default: a representative frame.",
        transform: TimePoint.parser(for: "--at"))
    var at: TimePoint?

    @Flag(help: "Decode to the exact time instead of the keyframe at or before it.")
    var exact = false

    @Option(help: "Width in pixels (the height follows the displayed aspect).")
    var width: Int?

    @Option(help: "Height in pixels (the width follows the displayed aspect).")
    var height: Int?

    @Option(
        help: "Fit inside WxH, keeping the displayed aspect.",
        transform: optionParser("--size") { text throws(ValueError) in
            try PixelSize.parse(text, largestSide: ThumbnailGeometry.maximumSide)
        })
    var size: PixelSize?

    @Option(help: "png or jpg. Default: from the output's extension, else png.", transform: ImageFormat.parser(for: "--format"))
    var format: ImageFormat?

    @Option(help: "JPEG quality, 1-100.")
    var quality = 90

    @Flag(help: "Render the stored pixels, without the orientation.")
    var asStored = false

    @Flag(help: "Stored and displayed side by side, labelled.")
    var compare = false

    @Option(
        help: "A contact sheet of CxR evenly spaced frames, for example 4x3.", transform: ContactSheetGrid.parser(for: "--grid"))
    var grid: ContactSheetGrid?

    @Option(help: "Files at once (default: the number of cores).")
    var jobs: Int?

    @Flag(help: "Print what was written as JSON.")
    var json = false

    @Flag(name: .shortAndLong, help: "Let FFmpeg print its own warnings on stderr.")
    var verbose = false

    @Flag(name: .shortAndLong, help: "No progress bar (there is none anyway when stderr is not a terminal or NO_COLOR is set).")
    var quiet = false

    private var box: (width: Int?, height: Int?) { size.map { ($0.width, $0.height) } ?? (width, height) }

    /// `--format`, else the output's extension, else PNG.
    private var imageFormat: ImageFormat { format ?? output.flatMap(ImageFormat.init(fileName:)) ?? .png }

    func validate() throws {
        guard !inputs.isEmpty else { throw ValidationError("give at least one input") }
        guard (output == nil) != (outDir == nil) else { throw ValidationError("give exactly one of -o OUT and --out-dir DIR") }
        if output != nil, inputs.count > 1 || Thumbnail.expand(inputs).files.count > 1 {
            throw ValidationError("-o takes one input; use --out-dir for several")
        }
        if size != nil && (width != nil || height != nil) { throw ValidationError("--size replaces --width and --height") }
        for (flag, value) in [("--width", width), ("--height", height)] {
            if let value, !(1...16384).contains(value) { throw ValidationError("\(flag) must be 1-16384") }
        }
        if [compare, asStored, grid != nil].filter({ $0 }).count > 1 {
            throw ValidationError("--compare, --as-stored and --grid do not combine")
        }
        if format == nil, let output, ImageFormat(fileName: output) == nil {
            throw ValidationError("cannot tell the format from '\(output)': use a .png or .jpg name, or --format")
        }
        guard (1...100).contains(quality) else { throw ValidationError("--quality must be 1-100") }
        if let jobs, !(1...Thumbnail.maximumJobs).contains(jobs) {
            throw ValidationError("--jobs must be 1-\(Thumbnail.maximumJobs)")
        }
        if !name.contains("{stem}") && !name.contains("{name}") && !name.contains("{index}") {
            throw ValidationError("--name must contain {stem}, {name} or {index}, or every file would get the same name")
        }
    }

    /// More workers than this only add memory: each holds a decoder and a picture.
    static let maximumJobs = 256

    func run() throws {
        FFmpegLog.setVerbose(verbose)
        let (files, notes) = Thumbnail.expand(inputs)
        var failed = false
        for note in notes where note.kind != .symlinkSkipped {
            Terminal.warn("could not read '\(note.path)': \(note.reason)")
            failed = true
        }
        let format = imageFormat
        let targets = try files.enumerated().map { index, file in try target(for: file, index: index, format: format) }
        let duplicates = Dictionary(grouping: targets, by: { $0 }).filter { $0.value.count > 1 }.keys
        if let duplicate = duplicates.first {
            throw ValidationError("two inputs would both be written to '\(duplicate)': add {parent} or {index} to --name")
        }
        if let outDir { try ensureDirectory(outDir) }
        if grid != nil || compare { Thumbnail.checkFont() }

        let request = ThumbnailRequest(
            at: at, exact: exact, width: box.width, height: box.height,
            asStored: asStored)
        let results = Mutex<[Written?]>(Array(repeating: nil, count: files.count))
        let failures = Atomic<Int>(0)
        let (grid, compare, quality) = (self.grid, self.compare, self.quality)
        let progress = ProgressBar(total: files.count, quiet: quiet || files.count < 2)
        forEachConcurrently(files.count, jobs: jobs ?? processorCount) { index in
            do {
                let written = try Thumbnail.make(
                    file: files[index], to: targets[index], format: format, quality: quality, request: request,
                    grid: grid, compare: compare)
                results.withLock { $0[index] = written }
            } catch {
                progress.warn(String(describing: error))
                failures.add(1, ordering: .relaxed)
            }
            progress.advance(files[index])
        }
        progress.finish()
        let written = results.withLock { $0.compactMap { $0 } }
        if json {
            print(try JSONText().encode(written))
        } else {
            for item in written {
                print("\(item.input.escapingControlCharacters) -> \(item.output.escapingControlCharacters) (\(item.width)x\(item.height)\(item.time.map { ", \(Thumbnail.seconds($0)) s" } ?? ""))")
            }
        }
        if failed || failures.load(ordering: .relaxed) > 0 { throw ExitStatus.unreadableInput }
    }

    /// Captions need a font: when none loads, say once why the pictures have no captions.
    static func checkFont() {
        guard FreeTypeFont.system == nil else { return }
        if let chosen = getenv("VIDORIENT_FONT"), chosen.pointee != 0 {
            Terminal.warn("could not load font '\(String(cString: chosen))' (VIDORIENT_FONT): writing pictures without captions")
        } else {
            Terminal.warn("no font found for captions (install fonts-dejavu-core, or set VIDORIENT_FONT to a .ttf): writing pictures without captions")
        }
    }

    /// Files as given, directories walked for media files (the same walk as `audit`).
    static func expand(_ inputs: [String]) -> (files: [String], notes: [WalkNote]) {
        var files: [String] = []
        var notes: [WalkNote] = []
        let walk = LibraryWalk(options: WalkOptions())
        for input in inputs {
            var status = stat()
            if input.withPathCString({ stat($0, &status) }) == 0, (status.st_mode & S_IFMT) == S_IFDIR {
                let found = walk.files([input])
                files += found.files
                notes += found.notes
            } else {
                // A file that is missing or unreadable is reported by the thumbnailer, in order.
                files.append(input)
            }
        }
        return (files, notes)
    }

    /// What was written for one input.
    struct Written: Encodable, Sendable {
        let input: String
        let output: String
        let width: Int
        let height: Int
        let time: Double?
        let exifOrientation: Int?

        enum CodingKeys: String, CodingKey {
            case input, inputBytes = "input_bytes", output, outputBytes = "output_bytes", width, height, time
            case exifOrientation = "exif_orientation"
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encodePath(input, forKey: .input, bytesKey: .inputBytes)
            try c.encodePath(output, forKey: .output, bytesKey: .outputBytes)
            try c.encode(width, forKey: .width)
            try c.encode(height, forKey: .height)
            try c.encode(time, forKey: .time)
            try c.encode(exifOrientation, forKey: .exifOrientation)
        }
    }

    static func make(
        file: String, to output: String, format: ImageFormat, quality: Int, request: ThumbnailRequest,
        grid: ContactSheetGrid?, compare: Bool
    ) throws(OutputError) -> Written {
        let thumbnailer = Thumbnailer()
        let picture: Picture
        var time: Double?
        var exif: Int?
        do {
            if let grid {
                picture = try thumbnailer.contactSheet(
                    file, columns: grid.columns, rows: grid.rows, tileWidth: request.width ?? request.height ?? 320,
                    exact: request.exact)
            } else if compare {
                picture = try thumbnailer.comparison(file, request: request)
            } else {
                let frame = try thumbnailer.frame(file, request: request)
                picture = frame.picture
                time = frame.time
                exif = request.asStored ? nil : frame.report.displayOrientation?.exif
            }
        } catch {
            throw OutputError(description: error.description)
        }
        let bytes: [UInt8]
        do { bytes = try format.encode(picture, quality: quality) } catch {
            throw OutputError(description: "could not render '\(file)': \(error)")
        }
        try write(bytes, to: output)
        return Written(input: file, output: output, width: picture.width, height: picture.height, time: time, exifOrientation: exif)
    }

    /// Writes through a temporary file renamed into place: a reader never sees half a picture.
    /// An existing output that is not a regular file (`/dev/stdout`, a FIFO, a device) is
    /// written to as a stream instead, and never replaced.
    static func write(_ bytes: [UInt8], to path: String) throws(OutputError) {
        var existing = stat()
        if path.withPathCString({ stat($0, &existing) }) == 0, existing.st_mode & S_IFMT != S_IFREG {
            guard existing.st_mode & S_IFMT != S_IFDIR else {
                throw OutputError(description: "could not write '\(path)': is a directory")
            }
            try stream(bytes, to: path)
            return
        }
        let temporary = path + ".tmp-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        let descriptor = temporary.withPathCString { open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644) }
        guard descriptor >= 0 else {
            throw OutputError(description: "could not write '\(path)': \(String(cString: strerror(errno)).lowercased())")
        }
        guard Terminal.writeAll(descriptor, bytes) else {
            let reason = String(cString: strerror(errno)).lowercased()
            close(descriptor)
            _ = temporary.withPathCString { unlink($0) }
            throw OutputError(description: "could not write '\(path)': \(reason)")
        }
        close(descriptor)
        guard temporary.withPathCString({ from in path.withPathCString { rename(from, $0) } }) == 0 else {
            let reason = String(cString: strerror(errno)).lowercased()
            _ = temporary.withPathCString { unlink($0) }
            throw OutputError(description: "could not write '\(path)': \(reason)")
        }
    }

    /// Writes `bytes` into an existing non-regular file, opened without creating or truncating.
    static func stream(_ bytes: [UInt8], to path: String) throws(OutputError) {
        let descriptor = path.withPathCString { open($0, O_WRONLY | O_NOCTTY | O_CLOEXEC) }
        guard descriptor >= 0 else {
            throw OutputError(description: "could not write '\(path)': \(String(cString: strerror(errno)).lowercased())")
        }
        defer { close(descriptor) }
        guard Terminal.writeAll(descriptor, bytes) else {
            throw OutputError(description: "could not write '\(path)': \(String(cString: strerror(errno)).lowercased())")
        }
    }

    private func target(for file: String, index: Int, format: ImageFormat) throws -> String {
        if let output { return output }
        let base = file.split(separator: "/").last.map(String.init) ?? file
        let stem = base.lastIndex(of: ".").map { String(base[..<$0]) } ?? base
        let parentComponents = file.split(separator: "/").dropLast()
        let parent = parentComponents.last.map(String.init) ?? "."
        let expanded = name.replacing("{stem}", with: stem)
            .replacing("{name}", with: base)
            .replacing("{parent}", with: parent)
            .replacing("{index}", with: String(index + 1))
            .replacing("{ext}", with: format.rawValue)
        guard !expanded.contains("/") || name.contains("/") else {
            throw ValidationError("--name produced '\(expanded)', which is not a file name")
        }
        guard let outDir else { return expanded }
        return (outDir.hasSuffix("/") ? outDir : outDir + "/") + expanded
    }

    private func ensureDirectory(_ path: String) throws {
        var status = stat()
        if path.withPathCString({ stat($0, &status) }) == 0 {
            guard (status.st_mode & S_IFMT) == S_IFDIR else {
                Terminal.warn("could not write to '\(path)': not a directory")
                throw ExitStatus.unreadableInput
            }
            return
        }
        guard path.withPathCString({ mkdir($0, 0o755) }) == 0 else {
            Terminal.warn("could not create '\(path)': \(String(cString: strerror(errno)).lowercased())")
            throw ExitStatus.unreadableInput
        }
    }

    static func seconds(_ value: Double) -> String {
        String((value * 1000).rounded() / 1000)
    }
}

/// An input that could not be turned into a picture on disk, with the whole line to print.
struct OutputError: Error, CustomStringConvertible {
    let description: String
}
