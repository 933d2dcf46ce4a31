import Synchronization
public import VidorientCore
public import VidorientIO

/// What `vidorient thumbnail` makes from its inputs, planned before any file is decoded: the
/// inputs expanded (directories walked for media, as `audit` walks them), each given the path it
/// is written to, and what each picture is (a frame, a stored-versus-displayed comparison, or a
/// contact sheet). `make` then renders one job and writes it, through a temporary file renamed
/// into place. A library user gets the same files as the command line.
public struct ThumbnailBatch: Sendable {
    /// Where pictures go: one named file (one input), or a folder with a name template.
    public enum Destination: Sendable, Hashable {
        case file(String)
        case folder(String, names: OutputNameTemplate)
    }

    /// What each picture shows.
    public enum Layout: Sendable, Hashable {
        /// One frame (upright, or as stored when the request says so).
        case frame
        /// Stored and displayed side by side, labelled.
        case comparison
        /// Evenly spaced frames in columns and rows.
        case contactSheet(ContactSheetGrid)
    }

    /// One input and the path its picture is written to.
    public struct Job: Sendable, Hashable {
        public let input: String
        public let output: String
    }

    /// A plan that cannot be carried out, said as one line (a usage error on the command line).
    public struct PlanError: Error, Sendable, Hashable, CustomStringConvertible {
        public let description: String
    }

    public let jobs: [Job]
    /// What the walk met that is not a file (unreadable folders, loops, skipped links).
    public let notes: [WalkNote]
    public let format: ImageFormat
    public let layout: Layout
    /// The folders below `--out-dir` that `--name` puts outputs in (`{parent}/{stem}.{ext}`).
    public let subfolders: [String]

    /// Makes the folders the outputs' names ask for, each part in turn, before anything is
    /// decoded: something in the way that is not a folder refuses the batch then, named, instead
    /// of every file failing on it later (issue 29).
    public func prepareFolders() throws(VidorientError) {
        for folder in subfolders {
            var path = folder.hasPrefix("/") ? "" : "."
            for part in folder.split(separator: "/") {
                path = path.isEmpty ? "/" + part : path + "/" + part
                try OutputFile.prepareFolder(path)
            }
        }
    }

    /// Expands `inputs` and names each output. Refuses several inputs for one `.file`, and
    /// two inputs named to the same output.
    public init(inputs: [String], destination: Destination, format: ImageFormat, layout: Layout) throws(PlanError) {
        let (files, notes) = LibraryWalk.expand(inputs)
        var jobs: [Job] = []
        for (index, file) in files.enumerated() {
            switch destination {
            case .file(let path):
                guard files.count == 1 else {
                    throw PlanError(description: "-o takes one input; use --out-dir for several")
                }
                jobs.append(Job(input: file, output: path))
            case .folder(let folder, let names):
                let name = try names.name(
                    for: file, index: index, format: format,
                    relativeFolder: ThumbnailBatch.relativeFolder(of: file, inputs: inputs))
                jobs.append(Job(input: file, output: (folder.hasSuffix("/") ? folder : folder + "/") + name))
            }
        }
        let duplicates = Dictionary(grouping: jobs.map(\.output), by: { $0 }).filter { $0.value.count > 1 }.keys
        if let duplicate = duplicates.sorted().first {
            throw PlanError(
                description: "two inputs would both be written to '\(duplicate)': add {parent} or {index} to --name")
        }
        if case .folder(let folder, let names) = destination, names.description.contains("/") {
            // Below the folder, made by `prepareFolders` before anything is decoded.
            let root = folder.hasSuffix("/") ? folder : folder + "/"
            subfolders = Set(
                jobs.compactMap { job -> String? in
                    guard let slash = job.output.lastIndex(of: "/"), job.output.count > root.count else { return nil }
                    return String(job.output[..<slash])
                }
            ).sorted()
        } else {
            subfolders = []
        }
        self.jobs = jobs
        self.notes = notes
        self.format = format
        self.layout = layout
    }

    /// A file's folder below the folder it was found in, as given (`a/b` for `LIB/a/b/x.jpg`
    /// found in `LIB`): `{relpath}`. Empty for a file given by name, or at the folder's top.
    static func relativeFolder(of file: String, inputs: [String]) -> String {
        for input in inputs where input != file {
            let root = input.hasSuffix("/") ? input : input + "/"
            guard file.hasPrefix(root) else { continue }
            let rest = file.dropFirst(root.count)
            return rest.lastIndex(of: "/").map { String(rest[..<$0]) } ?? ""
        }
        return ""
    }

    /// What was written for one input.
    public struct Written: Encodable, Sendable, Hashable {
        /// The input as read; a caller that read standard input through a spool names it `-`.
        @ReportedPath public var input: String
        @ReportedPath public var output: String
        public let width: Int
        public let height: Int
        /// Seconds into the clip of the frame shown (a frame layout only).
        public let time: Double?
        /// The orientation applied (a frame layout, upright, only).
        public let exifOrientation: Int?
        /// What the picture may show of damage: the file's `file-truncated` and `file-damaged`
        /// findings, and the decoder's warnings as those findings (`Thumbnailer.Frame.damage`).
        /// The picture is written all the same, as viewers show such files; empty for a whole file.
        public let findings: [Finding]
        /// What the output is not, for stderr (not in the JSON): a photo's contact sheet is the
        /// picture once.
        public var note: String? = nil
        /// The folder the output went into (through a symbolic link, the target's), which a batch
        /// flushes at its end (not in the JSON); nil for standard output, a FIFO or a device.
        public var folder: String? = nil

        enum CodingKeys: String, CodingKey {
            case input, output, width, height, time, exifOrientation = "exif_orientation", findings
        }
    }

    /// Renders one job's picture and writes it; the error names the file (its description is
    /// the whole line to print).
    public func make(_ job: Job, request: ThumbnailRequest, quality: Int, flush: OutputFile.Flush = .now)
        throws(VidorientError) -> Written
    {
        // A frame alone has no caption: FreeType is not even opened for it.
        let thumbnailer = layout == .frame ? Thumbnailer(font: nil) : Thumbnailer()
        let picture: Picture
        var time: Double?
        var exif: Int?
        let damage: [Finding]
        var note: String?
        switch layout {
        case .contactSheet(let grid):
            (picture, damage, note) = try thumbnailer.contactSheetAndDamage(
                job.input, columns: grid.columns, rows: grid.rows,
                tileWidth: request.width ?? request.height ?? 320,
                exact: request.exact)
        case .comparison:
            let frame = try thumbnailer.frame(job.input, request: request)
            picture = thumbnailer.comparison(of: frame)
            damage = frame.damage
        case .frame:
            let frame = try thumbnailer.frame(job.input, request: request)
            picture = frame.picture
            time = frame.time
            exif = request.asStored ? nil : frame.report.displayOrientation?.exif
            damage = frame.damage
        }
        let bytes: [UInt8]
        do { bytes = try format.encode(picture, quality: quality) } catch {
            throw error.at(path: job.input, action: "render")
        }
        let folder = try OutputFile.write(bytes, to: job.output, flush: flush)
        return Written(
            input: job.input, output: job.output, width: picture.width, height: picture.height, time: time,
            exifOrientation: exif, findings: damage, note: note, folder: folder)
    }

    /// Makes every job's thumbnail, `jobs` at once (`forEachConcurrently`; more jobs than cores
    /// take turns on them, `onCores`: each holds a decoder and its frames while it runs): the
    /// thumbnails written, in the jobs' order, and how many failed. `finished` hears each job as it ends, with
    /// its thumbnail or its error (whose description is the whole line to print).
    ///
    /// Two or more thumbnails are put on the disk once, at the end (`OutputFile.Flush.later`: one
    /// `syncfs` a file system), before any is returned as written: two `fsync`s each serialized
    /// the workers on the file system's journal (1.65× at two jobs; 1.95× without them). A
    /// folder that cannot be flushed fails its thumbnails, each heard by `finished`.
    public func makeAll(
        request: ThumbnailRequest, quality: Int, jobs workers: Int,
        finished: @Sendable (Job, Result<Written, VidorientError>) -> Void
    ) -> (written: [Written], failed: Int) {
        let results = Mutex<[Written?]>(Array(repeating: nil, count: jobs.count))
        let failures = Atomic<Int>(0)
        // One thumbnail is flushed exactly (its file and folder): `syncfs` flushes all the file
        // system holds, other programs' writes too.
        let flush: OutputFile.Flush = jobs.count > 1 ? .later : .now
        withoutActuallyEscaping(finished) { finished in
            forEachConcurrently(jobs.count, jobs: workers, onCores: true) { index in
                let result = Result { () throws(VidorientError) in
                    try make(jobs[index], request: request, quality: quality, flush: flush)
                }
                if case .success(let written) = result {
                    results.withLock { $0[index] = written }
                } else {
                    failures.add(1, ordering: .relaxed)
                }
                finished(jobs[index], result)
            }
        }
        var written = results.withLock { $0 }
        var failed = failures.load(ordering: .relaxed)
        guard flush == .later else { return (written.compactMap { $0 }, failed) }
        let unflushed = OutputFile.flushFileSystems(of: Set(written.compactMap { $0?.folder }))
        for index in written.indices {
            guard let folder = written[index]?.folder, let error = unflushed[folder] else { continue }
            written[index] = nil
            failed += 1
            finished(jobs[index], .failure(error))
        }
        return (written.compactMap { $0 }, failed)
    }
}

extension ThumbnailBatch.Written {
    /// `in.mp4 -> out.png (320x180, 1.5 s)`, as `vidorient thumbnail` prints it.
    public var line: String {
        let at = time.map { ", \(String(($0 * 1000).rounded() / 1000)) s" } ?? ""
        return "\(input.escapingControlCharacters) -> \(output.escapingControlCharacters) (\(width)x\(height)\(at))"
    }
}

/// How each output in a folder is named: `{stem}` (the input's name without its extension),
/// `{name}`, `{parent}` (its folder's name), `{relpath}` (its folder below the folder given, so
/// that `{relpath}/{stem}.{ext}` mirrors the source tree, as vipsthumbnail's `-o` pattern),
/// `{index}` (from 1) and `{ext}` (the format's).
public struct OutputNameTemplate: Sendable, Hashable, CustomStringConvertible {
    public let description: String

    public static let standard = OutputNameTemplate(unchecked: "{stem}.{ext}")

    private init(unchecked text: String) { description = text }

    /// A template that tells inputs apart: it holds `{stem}`, `{name}` or `{index}`.
    public static func parse(_ text: String) throws(ValueError) -> OutputNameTemplate {
        guard text.contains("{stem}") || text.contains("{name}") || text.contains("{index}") else {
            throw ValueError("must contain {stem}, {name} or {index}, or every file would get the same name")
        }
        return OutputNameTemplate(unchecked: text)
    }

    /// The name of input number `index` (from 0). Refused when it would put a `/` in a name
    /// that the template did not.
    public func name(for file: String, index: Int, format: ImageFormat, relativeFolder: String = "")
        throws(ThumbnailBatch.PlanError) -> String
    {
        let components = file.split(separator: "/")
        let base = components.last.map(String.init) ?? file
        let stem = base.lastIndex(of: ".").map { String(base[..<$0]) } ?? base
        let parent = components.dropLast().last.map(String.init) ?? "."
        // A file at the top has no folder to mirror: `{relpath}/` goes with it.
        let expanded = description.replacing("{relpath}/", with: relativeFolder.isEmpty ? "" : relativeFolder + "/")
            .replacing("{relpath}", with: relativeFolder)
            .replacing("{stem}", with: stem)
            .replacing("{name}", with: base)
            .replacing("{parent}", with: parent)
            .replacing("{index}", with: String(index + 1))
            .replacing("{ext}", with: format.rawValue)
        guard !expanded.contains("/") || description.contains("/") else {
            throw ThumbnailBatch.PlanError(description: "--name produced '\(expanded)', which is not a file name")
        }
        return expanded
    }
}
