public import VidorientCore
import VidorientISOBMFF
public import VidorientPhoto
import VidorientPhotoDecoding

/// What `normalize` will do to one photo: turn its pixels by the transform its orientation names
/// and set the orientation to 1, so that it shows exactly what it showed, to every viewer.
/// `bytes` is the whole new file (nil when the photo is already upright).
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
    public var bytes: [UInt8]?
    /// What a decode of the written file must give, for the re-encoded formats.
    var expected: ExpectedPixels?

    public var isUpright: Bool { bytes == nil }

    enum ExpectedPixels: Sendable {
        case png(LosslessStillValue)
        case webp(WebPLossless.Pixels)
    }
}

/// `LosslessStill` holds an FFmpeg enum; this is its comparable, sendable form.
struct LosslessStillValue: Sendable, Equatable {
    var width: Int, height: Int, format: Int32, pixels: [UInt8], palette: [UInt8]?

    init(_ still: LosslessStill) {
        (width, height, format, pixels, palette) = (
            still.width, still.height, still.pixelFormat.rawValue, still.pixels, still.palette
        )
    }
}

/// Plans and checks `normalize`. The format decides the method; the refusals say what to use instead.
public enum PhotoNormalizer {
    /// A file normalize will not rewrite, and why (one lowercase clause, no path).
    public struct Refusal: Error, Sendable, CustomStringConvertible {
        public let reason: String
        public var description: String { reason }
    }

    /// Files are read whole; larger ones are refused.
    public static let maximumFileSize: Int64 = 1 << 30

    static let tagOnly = "`vidorient fix` (tag only) is the lossless answer for it"

    public static func plan(path: String, trim: Bool = false) throws(Refusal) -> NormalizePlan {
        let format: MediaFormat
        do { format = try PhotoReader.format(of: path) } catch { throw Refusal(reason: error.reason) }
        switch format {
        case .jpeg, .png, .webp: break
        case .heif:
            throw Refusal(reason: "a \(format) would have to be re-encoded, losing quality; \(tagOnly)")
        case .tiff:
            throw Refusal(reason: "normalize does not rewrite tiff or raw files; \(tagOnly)")
        case .raw(let name):
            throw Refusal(reason: "normalize does not rewrite raw files, and fix does not write \(name) files yet")
        case .movie:
            throw Refusal(
                reason:
                    "a video: normalize turns photos' pixels; `vidorient fix` sets a video's orientation losslessly (tag only)"
            )
        case .other(let name):
            throw Refusal(
                reason:
                    "not a photo normalize can turn (\(name ?? "unknown format")); for a video, `vidorient fix` sets the orientation (tag only)"
            )
        }
        let evidence: PhotoEvidence
        do { evidence = try PhotoReader.read(path: path, format: format) } catch { throw Refusal(reason: error.reason) }
        var findings: [Finding] = []
        let report = PhotoReport(evidence: evidence, findings: &findings)
        let before = Orientation(exif: report.exifOrientation) ?? .up
        let transform = UprightTransform(before)
        var plan = NormalizePlan(
            path: path, format: format, before: before, transform: transform, method: .none,
            storedWidth: report.storedWidth,
            storedHeight: report.storedHeight, width: report.storedWidth, height: report.storedHeight, trimmed: false,
            changes: [], thumbnail: .absent, warnings: [], originalSize: evidence.fileSize ?? 0, bytes: nil)
        guard transform != .none else { return plan }
        let bytes: [UInt8]
        do { bytes = try ReplacementWriter.readAll(path, limit: maximumFileSize) } catch {
            throw Refusal(reason: error.reason)
        }
        plan.originalSize = bytes.count
        do {
            switch format {
            case .jpeg: try planJPEG(bytes, trim: trim, into: &plan)
            case .png: try planPNG(bytes, into: &plan)
            default: try planWebP(bytes, into: &plan)
            }
        } catch let error as Refusal {
            throw error
        } catch let error as PhotoFormatError {
            throw Refusal(reason: error.reason)
        } catch {
            throw Refusal(reason: "\(error)")
        }
        return plan
    }

    static func planJPEG(_ bytes: [UInt8], trim: Bool, into plan: inout NormalizePlan) throws {
        let layout = try JPEGUpright.Layout(bytes)
        // Without a trailer (MPF images) the file is the image: shared, not copied.
        let image = layout.imageEnd == bytes.count ? bytes : Array(bytes[..<layout.imageEnd])
        let transform = plan.transform
        let header: JPEGLosslessTransform.Header
        let turned: [UInt8]
        do {
            header = try JPEGLosslessTransform.header(of: image)
            turned = try JPEGLosslessTransform.apply(
                transform, to: image, edges: trim ? .trim : .perfect, progressive: layout.isProgressive)
        } catch { throw Refusal(reason: error.description) }
        let rebuilt = try JPEGUpright.rebuild(original: bytes, layout: layout, turned: turned, transform: transform) {
            thumbnail in
            do throws(JPEGDecodeError) {
                let turned = try JPEGLosslessTransform.apply(transform, to: thumbnail, edges: .perfect)
                return .success(JPEGUpright.withoutApplicationSegments(turned))
            } catch {
                return .failure(PhotoFormatError(error.description))
            }
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
        plan.bytes = rebuilt.bytes
    }

    static func planPNG(_ bytes: [UInt8], into plan: inout NormalizePlan) throws {
        if let reason = PNGUpright.refusal(bytes) { throw Refusal(reason: reason) }
        try checkPixelCount(plan)
        let still: LosslessStill
        let encoded: [UInt8]
        do {
            still = try LosslessStill.decode(path: plan.path).applying(plan.transform)
            encoded = try still.encodePNG()
        } catch { throw Refusal(reason: error.reason) }
        let rebuilt = try PNGUpright.rebuild(original: bytes, encoded: encoded, transform: plan.transform)
        plan.method = .losslessReencode
        (plan.width, plan.height) = (still.width, still.height)
        plan.changes = ["pixels: \(plan.transform.rawValue), decoded and re-encoded losslessly"] + rebuilt.changes
        plan.expected = .png(LosslessStillValue(still))
        plan.bytes = rebuilt.bytes
    }

    static func planWebP(_ bytes: [UInt8], into plan: inout NormalizePlan) throws {
        if let reason = WebPUpright.refusal(bytes) { throw Refusal(reason: reason) }
        try checkPixelCount(plan)
        var pixels: WebPLossless.Pixels
        let encoded: [UInt8]
        do {
            pixels = try WebPLossless.decode(bytes)
            pixels.rgba = plan.transform.apply(
                to: pixels.rgba, width: pixels.width, height: pixels.height, bytesPerPixel: 4)
            if plan.transform.swapsAxes { (pixels.width, pixels.height) = (pixels.height, pixels.width) }
            encoded = try WebPLossless.encode(pixels)
        } catch { throw Refusal(reason: error.description) }
        let rebuilt = try WebPUpright.rebuild(
            original: bytes, encoded: encoded, transform: plan.transform, width: pixels.width, height: pixels.height)
        plan.method = .losslessReencode
        (plan.width, plan.height) = (pixels.width, pixels.height)
        plan.changes =
            ["pixels: \(plan.transform.rawValue), decoded and re-encoded losslessly (exact)"] + rebuilt.changes
        plan.expected = .webp(pixels)
        plan.bytes = rebuilt.bytes
    }

    static func checkPixelCount(_ plan: NormalizePlan) throws {
        let (w, h) = (plan.storedWidth ?? 0, plan.storedHeight ?? 0)
        guard w.multipliedReportingOverflow(by: h).partialValue <= JPEGDecoder.maximumPixels else {
            throw Refusal(
                reason: "the picture claims \(w)x\(h) pixels, more than the \(JPEGDecoder.maximumPixels) allowed")
        }
    }

    /// Nil when the file at `path` reads back as the plan's result: orientation 1, the planned
    /// size, and for re-encoded formats the planned pixels exactly; the reason otherwise.
    public static func check(_ path: String, against plan: NormalizePlan) -> String? {
        let evidence: PhotoEvidence
        do { evidence = try PhotoReader.read(path: path, format: plan.format) } catch { return error.reason }
        var findings: [Finding] = []
        let report = PhotoReport(evidence: evidence, findings: &findings)
        guard report.exifOrientation == 1 else {
            return "it reads back as orientation \(report.exifOrientation), not 1"
        }
        guard report.storedWidth == plan.width, report.storedHeight == plan.height else {
            return
                "it reads back as \(report.storedWidth ?? 0)x\(report.storedHeight ?? 0), not \(plan.width ?? 0)x\(plan.height ?? 0)"
        }
        switch plan.expected {
        case .png(let expected):
            guard let still = try? LosslessStill.decode(path: path), LosslessStillValue(still) == expected else {
                return "its pixels do not decode to the turned original's"
            }
        case .webp(let expected):
            guard let bytes = try? ReplacementWriter.readAll(path, limit: maximumFileSize),
                let pixels = try? WebPLossless.decode(bytes), pixels == expected
            else { return "its pixels do not decode to the turned original's" }
        case nil: break
        }
        return nil
    }
}
