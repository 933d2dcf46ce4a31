public import VidorientCore
import VidorientFFmpeg
public import VidorientIO
public import VidorientPhoto
import VidorientPhotoDecoding

/// What `normalize` will do to one photo: turn its pixels by the transform its orientation names
/// and set the orientation to 1, so that it shows exactly what it showed, to every viewer.
/// `contents` is the whole new file, piece after piece (empty when the photo is already upright).
public struct NormalizePlan: Sendable {
    public enum Method: String, Sendable, Hashable, Encodable {
        /// No pixel is touched: the photo is already upright.
        case none
        /// JPEG: libjpeg-turbo moves the DCT coefficients (no decode, no re-quantisation).
        case losslessTransform = "lossless_transform"
        /// PNG, lossless WebP: decoded, moved, re-encoded losslessly; the pixels are identical.
        case losslessReencode = "lossless_reencode"
    }

    public var path: String
    public var format: MediaFormat
    public var before: Orientation
    public var transform: UprightTransform
    public var method: Method
    public var storedWidth: Int?
    public var storedHeight: Int?
    /// The stored (and displayed) size afterwards: the displayed size before, less what `--trim` cut.
    public var width: Int?
    public var height: Int?
    /// Partial MCU blocks were dropped (`--trim`).
    public var trimmed: Bool
    /// Each place changed, for a person.
    public var changes: [String]
    public var thumbnail: ThumbnailOutcome
    public var warnings: [String]
    public var originalSize: Int
    /// The new file in pieces the writer streams one after another (the markers, the turned image,
    /// the original's trailer, copied from the file by the kernel), never copied into one.
    public internal(set) var contents: [EditWriter.Piece]
    /// The size of the new file.
    public var newSize: Int { Int(contents.reduce(0) { $0 + $1.count }) }
    /// What a decode of the written file must give, for the re-encoded formats.
    var expected: ExpectedPixels?

    public var isUpright: Bool { transform == .none }

    enum ExpectedPixels: Sendable {
        case png(LosslessStillValue)
        case webp(WebPLossless.Pixels)
    }
}

/// Plans and checks `normalize`. The format decides the method; the refusals say what to use instead.
public enum PhotoNormalizer {
    /// Files are read whole; larger ones are refused (upright ones too).
    public static let maximumFileSize: Int64 = 1 << 30

    static let tagOnly = "`vidorient fix` (tag only) is the lossless answer for it"

    /// What normalize would do to the photo at `path`: refused (`.unsupported`, the reason naming
    /// what to use instead) for a format it does not turn losslessly; the plan otherwise.
    public static func plan(path: String, trim: Bool = false) throws(VidorientError) -> NormalizePlan {
        let format = try Prober.format(of: path)
        switch format {
        case .jpeg, .png, .webp: break
        case .heif:
            throw .unsupported("a \(format) would have to be re-encoded, losing quality; \(tagOnly)")
        case .tiff:
            throw .unsupported("normalize does not rewrite tiff or raw files; \(tagOnly)")
        case .raw(let name):
            throw .unsupported("normalize does not rewrite raw files, and fix does not write \(name) files yet")
        case .movie:
            throw .unsupported(
                "a video: normalize turns photos' pixels; `vidorient fix` sets a video's orientation losslessly (tag only)"
            )
        case .other(let name):
            throw .unsupported(
                "not a photo normalize can turn (\(name ?? "unknown format")); for a video, `vidorient fix` sets the orientation (tag only)"
            )
        }
        let evidence = try Prober.photoEvidence(path, format: format)
        // Refused whatever its orientation, so that an upright one asked for a copy (`-o`) is not
        // a success with nothing written.
        if let size = evidence.fileSize, Int64(size) > maximumFileSize {
            throw .unsupported("normalize reads a photo whole, up to \(maximumFileSize) bytes; this one is \(size)")
        }
        var findings: [Finding] = []
        let report = PhotoReport(evidence: evidence, findings: &findings)
        let before = Orientation(exif: report.exifOrientation) ?? .up
        let transform = UprightTransform(before)
        var plan = NormalizePlan(
            path: path, format: format, before: before, transform: transform, method: .none,
            storedWidth: report.storedWidth,
            storedHeight: report.storedHeight, width: report.storedWidth, height: report.storedHeight, trimmed: false,
            changes: [], thumbnail: .absent, warnings: [], originalSize: evidence.fileSize ?? 0, contents: [])
        guard transform != .none else { return plan }
        let bytes = try FileBytes.readAll(path, limit: maximumFileSize)
        plan.originalSize = bytes.count
        switch format {
        case .jpeg: try planJPEG(bytes, trim: trim, into: &plan)
        case .png: try planPNG(bytes, into: &plan)
        default: try planWebP(bytes, into: &plan)
        }
        return plan
    }

    static func planJPEG(_ bytes: [UInt8], trim: Bool, into plan: inout NormalizePlan) throws(VidorientError) {
        let layout = try JPEGUpright.Layout(bytes)
        // With a trailer (MPF images) the image is the file's first part: a slice, not copied.
        let image = bytes[..<layout.imageEnd]
        let transform = plan.transform
        let (header, turned) = try image.withUnsafeBytes { raw in
            Result { () throws(VidorientError) in
                (
                    try JPEGLosslessTransform.header(of: raw),
                    try JPEGLosslessTransform.apply(
                        transform, to: raw, edges: trim ? .trim : .perfect, progressive: layout.isProgressive)
                )
            }
        }.get()
        let rebuilt = try JPEGUpright.rebuild(original: bytes, layout: layout, turned: turned, transform: transform) {
            thumbnail in
            Result { () throws(VidorientError) in
                JPEGUpright.withoutApplicationSegments(
                    try JPEGLosslessTransform.apply(transform, to: thumbnail, edges: .perfect))
            }
            // Absent is fine: the size for the report only; the written file is read back and checked whole.
        }
        let after = try? JPEGLosslessTransform.header(of: turned)
        plan.method = .losslessTransform
        plan.trimmed = trim && header.imperfection(of: transform) != nil
        (plan.width, plan.height) = (after?.width, after?.height)
        plan.changes = ["pixels: \(transform.rawValue), dct coefficients moved losslessly"] + rebuilt.changes
        plan.thumbnail = rebuilt.thumbnail
        plan.warnings = rebuilt.warnings
        if plan.trimmed, let after {
            plan.warnings.append(
                "--trim dropped the partial mcu blocks: \(header.width)x\(header.height) stored became \(after.width)x\(after.height)"
            )
        }
        plan.contents = [
            .bytes(rebuilt.markers[...]), .bytes(rebuilt.image),
            .original(Int64(rebuilt.trailer.lowerBound)..<Int64(rebuilt.trailer.upperBound)),
        ]
    }

    static func planPNG(_ bytes: [UInt8], into plan: inout NormalizePlan) throws(VidorientError) {
        if let reason = PNGUpright.refusal(bytes) { throw .unsupported(reason) }
        // IHDR is the first chunk: bit depth at 24, colour type at 25 (gray, RGB, palette, gray
        // and alpha, RGBA: 1, 3, 1, 2, 4 samples), each sample two bytes at depth 16.
        let samples = bytes.count > 25 ? [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][Int(bytes[25])] ?? 4 : 4
        try checkPixelCount(plan, bytesPerPixel: samples * (bytes.count > 24 && bytes[24] == 16 ? 2 : 1))
        let still = try LosslessStill.decode(path: plan.path).applying(plan.transform)
        let encoded = try still.encodePNG()
        let rebuilt = try PNGUpright.rebuild(original: bytes, encoded: encoded, transform: plan.transform)
        plan.method = .losslessReencode
        (plan.width, plan.height) = (still.width, still.height)
        plan.changes = ["pixels: \(plan.transform.rawValue), decoded and re-encoded losslessly"] + rebuilt.changes
        plan.expected = .png(LosslessStillValue(still))
        plan.contents = [.bytes(rebuilt.bytes[...])]
    }

    static func planWebP(_ bytes: [UInt8], into plan: inout NormalizePlan) throws(VidorientError) {
        if let reason = WebPUpright.refusal(bytes) { throw .unsupported(reason) }
        try checkPixelCount(plan, bytesPerPixel: 4)
        var pixels = try WebPLossless.decode(bytes)
        pixels.rgba = plan.transform.apply(
            to: pixels.rgba, width: pixels.width, height: pixels.height, bytesPerPixel: 4)
        if plan.transform.swapsAxes { (pixels.width, pixels.height) = (pixels.height, pixels.width) }
        let encoded = try WebPLossless.encode(pixels)
        let rebuilt = try WebPUpright.rebuild(
            original: bytes, encoded: encoded, transform: plan.transform, width: pixels.width, height: pixels.height)
        plan.method = .losslessReencode
        (plan.width, plan.height) = (pixels.width, pixels.height)
        plan.changes =
            ["pixels: \(plan.transform.rawValue), decoded and re-encoded losslessly (exact)"] + rebuilt.changes
        plan.expected = .webp(pixels)
        plan.contents = [.bytes(rebuilt.bytes[...])]
    }

    /// Refuses a picture whose decoded pixels would pass `maximumReencodedBytes`: a re-encode
    /// holds about three copies of them (decoded, turned, encoded; 2.35 GB for a 750 KB PNG
    /// claiming 16000x16000 before this bound), and any single input stays within 400 MB.
    static func checkPixelCount(_ plan: NormalizePlan, bytesPerPixel: Int) throws(VidorientError) {
        let (w, h) = (plan.storedWidth ?? 0, plan.storedHeight ?? 0)
        let (pixels, overflow) = w.multipliedReportingOverflow(by: h)
        guard !overflow, pixels <= maximumReencodedBytes / bytesPerPixel else {
            throw .unsupported(
                "the picture claims \(w)x\(h) pixels of \(bytesPerPixel) bytes, more than the "
                    + "\(maximumReencodedBytes >> 20) MB a lossless re-encode decodes")
        }
    }

    /// The most bytes of decoded pixels normalize re-encodes (PNG, lossless WebP): 33 megapixels
    /// of 8-bit RGB, 25 of RGBA (a 36-megapixel RGB PNG, 103 MB of pixels, peaked at 380 MB).
    static let maximumReencodedBytes = 96 << 20

    /// Returns when the file at `path` reads back as the plan's result: orientation 1, the planned
    /// size, and for re-encoded formats the planned pixels exactly; throws the reason otherwise.
    public static func check(_ path: String, against plan: NormalizePlan) throws(VidorientError) {
        let evidence = try Prober.photoEvidence(path, format: plan.format)
        var findings: [Finding] = []
        let report = PhotoReport(evidence: evidence, findings: &findings)
        guard report.exifOrientation == 1 else {
            throw .malformed("it reads back as orientation \(report.exifOrientation), not 1")
        }
        guard report.storedWidth == plan.width, report.storedHeight == plan.height else {
            throw .malformed(
                "it reads back as \(report.storedWidth ?? 0)x\(report.storedHeight ?? 0), not \(plan.width ?? 0)x\(plan.height ?? 0)"
            )
        }
        let different = VidorientError.malformed("its pixels do not decode to the turned original's")
        switch plan.expected {
        case .png(let expected):
            let still = try LosslessStill.decode(path: path)
            guard LosslessStillValue(still) == expected else { throw different }
        case .webp(let expected):
            guard try WebPLossless.decode(try FileBytes.readAll(path, limit: maximumFileSize)) == expected else {
                throw different
            }
        case nil: break
        }
    }

    /// Records one replacement around its write, which it must run once (`normalize --journal`:
    /// `JournalFile.record(_:write:)` in VidorientFix keeps the original and journals it).
    public typealias Journal = (
        _ plan: NormalizePlan, _ write: () throws(VidorientError) -> EditWriter.Outcome
    ) throws(VidorientError) -> EditWriter.Outcome

    /// Normalizes the photo at `path`, as `vidorient normalize` does: locked from the first read to
    /// the read-back; planned (`plan`); unless `dryRun`, the new file written by `EditWriter` in
    /// place of the original (or to `output`, leaving it alone) and read back (`check`). A photo
    /// already upright is left alone, but `output` still gets a copy. `warn` hears the plan's
    /// warnings as soon as they are known. `preserveModificationTime`: the written file keeps the
    /// original's access and modification times (taken before the first read). `journal`, when
    /// given, records a file replaced in place (not a copy to `output`) around its write.
    public static func normalize(
        path: String, trim: Bool = false, output: String? = nil, dryRun: Bool = false,
        preserveModificationTime: Bool = false, warn: (String) -> Void = { _ in }, journal: Journal? = nil
    ) throws(VidorientError) -> NormalizeResult {
        let times = preserveModificationTime && !dryRun ? try FileTimes(path: path) : nil
        let lock = dryRun ? nil : try FileLock(path: path)
        defer { withExtendedLifetime(lock) {} }
        let plan = try plan(path: path, trim: trim)
        plan.warnings.forEach(warn)
        var result = NormalizeResult(plan: plan, dryRun: dryRun, preserveMtime: preserveModificationTime)
        guard !dryRun else { return result }
        let change: EditWriter.Change
        if !plan.contents.isEmpty {
            change = .contents(plan.contents)
        } else if output != nil {
            change = .edit(.none)  // already upright: the copy -o asks for
        } else {
            return result
        }
        let write = { () throws(VidorientError) -> EditWriter.Outcome in
            try EditWriter.write(
                change, path: path, mode: output.map { .copy(to: $0) } ?? .replace, preservingTimes: times, lock: lock
            ) { written throws(VidorientError) in
                if !plan.isUpright { try check(written, against: plan) }
            }
        }
        let outcome: EditWriter.Outcome
        if let journal, output == nil { outcome = try journal(plan, write) } else { outcome = try write() }
        result.writtenPath = outcome.writtenPath
        result.sizeAfter = Int(outcome.bytesWritten)
        result.verified = !plan.isUpright
        return result
    }
}
