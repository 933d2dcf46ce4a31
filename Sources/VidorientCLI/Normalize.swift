import ArgumentParser
import VidorientCore
import VidorientFFmpeg
import VidorientISOBMFF
import VidorientPhoto

struct Normalize: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Turn photos' pixels upright and set their orientation to 1; each shows exactly as before.",
        discussion: """
            JPEG is turned losslessly (libjpeg-turbo moves the DCT coefficients, as jpegtran -perfect); \
            a size that is not a multiple of the MCU is refused unless --trim drops the partial blocks. \
            Every other metadata segment is kept; the EXIF sizes are swapped and its thumbnail turned \
            (or dropped, when it cannot be turned losslessly). PNG and lossless WebP are decoded, turned \
            and re-encoded losslessly, their other chunks kept. Lossy WebP, HEIC, AVIF and TIFF are \
            refused: `vidorient fix` (tag only) is the lossless answer for them, as for videos. The new \
            file is written beside the old one, flushed, read back and renamed over it. See docs/normalize.md.
            """
    )

    @Argument(help: "JPEG, PNG or lossless WebP photos.", completion: .file())
    var files: [String]

    @Flag(help: "JPEG: drop partial MCU blocks on the edges a turn would move, instead of refusing.")
    var trim = false

    @Flag(help: "Show what would change; write nothing.")
    var dryRun = false

    @Option(
        name: [.customShort("o"), .customLong("output")],
        help: "Write the upright file here, leaving the input alone (one input only).")
    var output: String?

    @Flag(help: "Keep the file's modification (and access) time, as exiftool -P does.")
    var preserveMtime = false

    @Flag(help: "Print JSON.")
    var json = false

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("give at least one photo to normalize") }
        if output != nil && files.count != 1 { throw ValidationError("-o goes with exactly one input file") }
    }

    func run() throws {
        FFmpegLog.setVerbose(false)
        let terminal = Terminal.standardOutput
        try reportEach(
            files, json: json, human: { NormalizeText(result: $0, terminal: terminal).text },
            report: { file in
                do throws(NormalizeFailure) { return try normalize(file) } catch {
                    Terminal.warn("could not normalize '\(file)': \(error.reason)")
                    return nil
                }
            })
    }

    struct NormalizeFailure: Error {
        let reason: String
    }

    private func normalize(_ file: String) throws(NormalizeFailure) -> NormalizeResult {
        // Locked from the first read to the read-back, as `fix` does.
        var lock: FileLock? = nil
        if !dryRun {
            do throws(ISOBMFFError) { lock = try FileLock(path: file) } catch {
                throw NormalizeFailure(reason: error.reason)
            }
        }
        defer { withExtendedLifetime(lock) {} }
        let plan: NormalizePlan
        do throws(PhotoNormalizer.Refusal) { plan = try PhotoNormalizer.plan(path: file, trim: trim) } catch {
            throw NormalizeFailure(reason: error.reason)
        }
        var result = NormalizeResult(plan: plan, dryRun: dryRun, preserveMtime: preserveMtime)
        for warning in plan.warnings { Terminal.warn("warning: '\(file)': \(warning)") }
        guard !dryRun else { return result }
        // Already upright: nothing to write, except the copy that -o asks for.
        guard
            let bytes = plan.bytes
                ?? (output != nil ? try? ReplacementWriter.readAll(file, limit: PhotoNormalizer.maximumFileSize) : nil)
        else { return result }
        do throws(ISOBMFFError) {
            let original = try ReplacementWriter.check(path: file, output: output)
            try ReplacementWriter.write(
                bytes, replacing: original, output: output, preserveModificationTime: preserveMtime, lock: lock
            ) { written in plan.isUpright ? nil : PhotoNormalizer.check(written, against: plan) }
        } catch {
            throw NormalizeFailure(reason: error.reason)
        }
        result.writtenPath = output ?? file
        result.sizeAfter = bytes.count
        result.verified = !plan.isUpright
        return result
    }
}

/// One photo's normalize, as `--json` prints it (docs/normalize.md lists every key).
struct NormalizeResult: Encodable {
    static let schemaVersion = 1

    let plan: NormalizePlan
    let dryRun: Bool
    let preserveMtime: Bool
    var writtenPath: String?
    var sizeAfter: Int?
    var verified = false

    init(plan: NormalizePlan, dryRun: Bool, preserveMtime: Bool) {
        self.plan = plan
        self.dryRun = dryRun
        self.preserveMtime = preserveMtime
        sizeAfter = dryRun ? plan.bytes?.count : nil
    }

    /// `normalized`, `already_upright` or, with `--dry-run`, `would_normalize`.
    var status: String { plan.isUpright ? "already_upright" : dryRun ? "would_normalize" : "normalized" }

    enum CodingKeys: String, CodingKey {
        case schemaVersion = "schema_version", path, pathBytes = "path_bytes", format, status, dryRun = "dry_run"
        case orientationBefore = "orientation_before", orientationAfter = "orientation_after", transform, method
        case storedWidthBefore = "stored_width_before", storedHeightBefore = "stored_height_before"
        case widthAfter = "width_after", heightAfter = "height_after", trimmed, thumbnail
        case thumbnailReason = "thumbnail_reason", changes, warnings, sizeBefore = "size_before", sizeAfter =
            "size_after"
        case writtenPath = "written_path", writtenPathBytes = "written_path_bytes", verified
        case mtimePreserved = "mtime_preserved"
    }

    // Hand-written: a different shape, every key computed from the plan and the outcome.
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(Self.schemaVersion, forKey: .schemaVersion)
        try c.encodePath(plan.path, forKey: .path, bytesKey: .pathBytes)
        try c.encode(plan.format.description, forKey: .format)
        try c.encode(status, forKey: .status)
        try c.encode(dryRun, forKey: .dryRun)
        try c.encode(plan.before.exif, forKey: .orientationBefore)
        try c.encode(1, forKey: .orientationAfter)
        try c.encode(plan.transform.rawValue, forKey: .transform)
        try c.encode(plan.method, forKey: .method)
        try c.encode(plan.storedWidth, forKey: .storedWidthBefore)
        try c.encode(plan.storedHeight, forKey: .storedHeightBefore)
        try c.encode(plan.width, forKey: .widthAfter)
        try c.encode(plan.height, forKey: .heightAfter)
        try c.encode(plan.trimmed, forKey: .trimmed)
        try c.encode(plan.thumbnail.name, forKey: .thumbnail)
        if case .dropped(let reason) = plan.thumbnail {
            try c.encode(reason, forKey: .thumbnailReason)
        } else {
            try c.encodeNil(forKey: .thumbnailReason)
        }
        try c.encode(plan.changes, forKey: .changes)
        try c.encode(plan.warnings, forKey: .warnings)
        try c.encode(plan.originalSize, forKey: .sizeBefore)
        try c.encode(sizeAfter, forKey: .sizeAfter)
        try c.encodePath(writtenPath, forKey: .writtenPath, bytesKey: .writtenPathBytes)
        try c.encode(verified, forKey: .verified)
        try c.encode(preserveMtime && writtenPath != nil, forKey: .mtimePreserved)
    }
}

/// One photo's normalize as a person reads it.
struct NormalizeText {
    let result: NormalizeResult
    let terminal: Terminal

    var text: String {
        let plan = result.plan
        var lines = [terminal.paint(plan.path.escapingControlCharacters, .bold)]
        func row(_ label: String, _ value: String) {
            lines.append("  " + terminal.paint(label.padding(11), .dim) + value)
        }
        let size = { (w: Int?, h: Int?) in "\(w.map(String.init) ?? "?")x\(h.map(String.init) ?? "?")" }
        if plan.isUpright {
            row(
                "unchanged",
                "already upright (EXIF \(plan.before.exif)); "
                    + (result.writtenPath.map { "copied to \($0.escapingControlCharacters)" } ?? "nothing written"))
            return lines.joined(separator: "\n") + "\n"
        }
        row("orientation", "EXIF \(plan.before.exif) (\(plan.before.summary)) -> \(terminal.paint("EXIF 1", .green))")
        row(
            "pixels",
            "\(plan.transform.rawValue), \(plan.method == .losslessTransform ? "lossless transform" : "lossless re-encode")"
        )
        row(
            "size",
            "\(size(plan.storedWidth, plan.storedHeight)) stored -> \(size(plan.width, plan.height))"
                + (plan.trimmed ? " (trimmed)" : ""))
        switch plan.thumbnail {
        case .absent: break
        case .transformed: row("thumbnail", "turned losslessly")
        case .dropped(let reason): row("thumbnail", "dropped: \(reason)")
        }
        for change in plan.changes.dropFirst() { row("changed", change) }
        if result.dryRun {
            row("dry run", "\(plan.bytes?.count ?? 0) bytes would be written; nothing written")
        } else if let written = result.writtenPath {
            row(
                "written",
                "\(written.escapingControlCharacters) (\(result.sizeAfter ?? 0) bytes\(result.verified ? ", verified" : ""))"
            )
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
