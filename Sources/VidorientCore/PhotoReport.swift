/// A photo: how it is stored, how it is shown, which statement decided, and every other
/// statement of an orientation the file (or its sidecar) makes.
///
/// The rules, one place for each:
/// - HEIF/HEIC/AVIF: the primary item's `irot`/`imir` decide, composed in `ipma` order (ISO/IEC
///   23008-12 makes them the display transform). EXIF inside is informative: reported and
///   compared, never applied on top.
/// - Every other format: EXIF `Orientation` decides when it holds 1–8 (what browsers, libvips and
///   exiftool's `-Orientation` follow); without EXIF, XMP `tiff:Orientation` does.
/// - A sidecar never decides: only the application that wrote it reads it. It is compared.
/// - The camera is named only where the metadata names it; photos get no matrix heuristic.
public struct PhotoReport: Sendable, Hashable, Codable {
    /// `jpeg`, `png`, `tiff`, `webp`, `heic`, `avif`, `heif`.
    public var format: String
    public var formatDetail: String?
    public var codec: String?
    public var storedWidth: Int?
    public var storedHeight: Int?
    public var displayWidth: Int?
    public var displayHeight: Int?
    public var layout: Layout?
    public var bitDepth: Int?
    public var hasAlpha: Bool
    /// The decided orientation, 1–8; 1 when nothing states one.
    public var exifOrientation: Int
    /// Clockwise degrees after the optional mirror.
    public var rotation: Int
    public var mirrored: Bool
    public var orientationSource: PhotoOrientationSource
    /// Every statement found, the deciding one first.
    public var sources: [PhotoSource]
    /// The primary item's transformative properties in `ipma` order (HEIF only; nil otherwise).
    public var heifTransforms: [HEIFTransformReport]?
    public var make: String?
    public var model: String?
    public var software: String?
    public var lensModel: String?
    /// EXIF `DateTimeOriginal` in ISO 8601, with `OffsetTimeOriginal` appended when present
    /// (`2024-05-06T07:08:09+02:00` for EXIF's `2024:05:06 07:08:09` and `+02:00`), as a video's
    /// date is shown; as stored when it is not EXIF's shape.
    public var captureDate: String?
    /// Whether EXIF holds a GPS position (`location`); nil when the file has no EXIF.
    public var gps: Bool?
    /// The GPS position: latitude and longitude with their references, the altitude when given;
    /// nil when there is none (a GPS IFD without both coordinates is none).
    public var location: Location?
    public var camera: CameraPosition?
    public var cameraEvidence: String?
    /// EXIF `PixelXDimension`/`PixelYDimension`: the size the camera says it wrote.
    public var exifPixelWidth: Int?
    public var exifPixelHeight: Int?
    /// Pictures embedded besides the main one: EXIF thumbnail, raw previews, HEIF thumbnail items.
    public var previews: [PreviewReport]
    /// HEIF auxiliary images (`alpha`, `depth`, `hdrgainmap`, …).
    public var auxiliary: [String]
    /// A motion photo's video, with its own orientation.
    public var motionVideo: VideoReport?

    /// The orientation as the enum; always one of the eight.
    public var orientation: Orientation { Orientation(exif: exifOrientation) ?? .up }

    /// An EXIF date (`2024:05:06 07:08:09`, an offset possibly after it) in ISO 8601
    /// (`2024-05-06T07:08:09`); as it is when it is not EXIF's shape.
    public static func iso8601(exifDate date: String) -> String {
        let characters = Array(date)
        guard characters.count >= 19, characters[4] == ":", characters[7] == ":", characters[10] == " ",
            characters[0..<4].allSatisfy(\.isNumber)
        else { return date }
        var iso = characters
        iso[4] = "-"
        iso[7] = "-"
        iso[10] = "T"
        return String(iso)
    }

    enum CodingKeys: String, CodingKey {
        case format, formatDetail = "format_detail", codec, storedWidth = "stored_width"
        case storedHeight = "stored_height", displayWidth = "display_width", displayHeight = "display_height"
        case layout, bitDepth = "bit_depth", hasAlpha = "has_alpha", exifOrientation = "exif_orientation"
        case rotation, mirrored, orientationSource = "orientation_source", sources
        case heifTransforms = "heif_transforms", make, model, software, lensModel = "lens_model"
        case captureDate = "capture_date", gps, location, camera, cameraEvidence = "camera_evidence"
        case exifPixelWidth = "exif_pixel_width", exifPixelHeight = "exif_pixel_height", previews, auxiliary
        case motionVideo = "motion_video"
    }
}

/// Which statement decided a photo's orientation.
public enum PhotoOrientationSource: String, Sendable, Hashable, Codable {
    /// HEIF `irot`/`imir`.
    case heif
    case exif
    case xmp
    /// Nothing states an orientation (or HEIF has no transformative property): shown as stored.
    case none
}

/// One statement of an orientation, as the report lists it.
public struct PhotoSource: Sendable, Hashable, Codable {
    public var source: OrientationStatement.Kind
    public var location: String
    /// The value as stored (nil for HEIF transforms).
    public var value: Int?
    /// What it means; nil when the value is not 1–8.
    public var exifOrientation: Int?

    enum CodingKeys: String, CodingKey { case source, location, value, exifOrientation = "exif_orientation" }
}

/// One HEIF transformative property in the report: `irot` with its anticlockwise quarter turns,
/// `imir` with its axis, `clap` with its size.
public struct HEIFTransformReport: Sendable, Hashable, Codable {
    public var property: String
    public var value: Int?
    public var width: Double?
    public var height: Double?
}

public struct PreviewReport: Sendable, Hashable, Codable {
    public var codec: String
    public var width: Int?
    public var height: Int?
    public var location: String
}

extension Orientation {
    /// The orientation HEIF transformative properties give, applied in the order listed (`ipma`
    /// order): `irot` n turns n quarter turns anticlockwise, `imir` axis 0 flips top and bottom,
    /// axis 1 swaps left and right. `clap` only crops. Nil for an `irot` outside 0–3 or another axis.
    public init?(heifTransforms transforms: [HEIFItemTransform]) {
        var map = LinearMap.identity
        for transform in transforms {
            switch transform {
            case .rotation(let turns):
                guard (0...3).contains(turns) else { return nil }
                for _ in 0..<((4 - turns) % 4) { map = LinearMap.quarterTurnClockwise.after(map) }
            case .mirror(let axis):
                switch axis {
                case 0: map = LinearMap(a: 1, b: 0, c: 0, d: -1).after(map)
                case 1: map = LinearMap.mirror.after(map)
                default: return nil
                }
            case .cleanAperture:
                break
            }
        }
        self.init(linear: map)
    }
}

extension HEIFItemTransform {
    /// The displayed size of a `width`×`height` picture after `transforms` in order: `clap` crops
    /// to its (rounded) size in the picture as it stands, a quarter turn swaps the sides.
    public static func displaySize(width: Int, height: Int, transforms: [HEIFItemTransform]) -> (
        width: Int, height: Int
    ) {
        var (w, h) = (width, height)
        for transform in transforms {
            switch transform {
            case .rotation(let turns): if turns % 2 == 1 { swap(&w, &h) }
            case .mirror: break
            case .cleanAperture(let clapWidth, let clapHeight, _, _):
                // A clean aperture larger than the picture, or not finite, crops nothing.
                if clapWidth.isFinite, clapHeight.isFinite, clapWidth >= 1, clapHeight >= 1 {
                    w = min(w, Int(clapWidth.rounded()))
                    h = min(h, Int(clapHeight.rounded()))
                }
            }
        }
        return (w, h)
    }

    var report: HEIFTransformReport {
        switch self {
        case .rotation(let turns): HEIFTransformReport(property: "irot", value: turns)
        case .mirror(let axis): HEIFTransformReport(property: "imir", value: axis)
        case .cleanAperture(let width, let height, _, _):
            HEIFTransformReport(property: "clap", width: width, height: height)
        }
    }

    /// `irot 3`, `imir 1`, `clap 3000x4000`.
    var summary: String {
        switch self {
        case .rotation(let turns): "irot \(turns)"
        case .mirror(let axis): "imir \(axis)"
        case .cleanAperture(let width, let height, _, _): "clap \(width.formatted)x\(height.formatted)"
        }
    }
}

extension PhotoReport {
    /// Decides the orientation from the evidence, and says what is worth saying about it.
    public init(evidence: PhotoEvidence, findings: inout [Finding]) {
        format = evidence.format.description
        formatDetail = evidence.formatDetail
        codec = evidence.codec
        storedWidth = evidence.storedWidth
        storedHeight = evidence.storedHeight
        bitDepth = evidence.bitDepth
        hasAlpha = evidence.hasAlpha
        let exif = evidence.exif
        make = exif?.make
        model = exif?.model
        software = exif?.software
        lensModel = exif?.lensModel
        captureDate = exif?.dateTimeOriginal.map { date in
            PhotoReport.iso8601(exifDate: exif?.offsetTimeOriginal.map { "\(date)\($0)" } ?? date)
        }
        location = exif?.gps
        gps = exif.map { $0.gps != nil }
        exifPixelWidth = exif?.pixelXDimension
        exifPixelHeight = exif?.pixelYDimension
        previews =
            (evidence.previews + (evidence.heif?.thumbnails ?? []))
            .map { PreviewReport(codec: $0.codec, width: $0.width, height: $0.height, location: $0.location) }
        auxiliary = evidence.heif?.auxiliary ?? []
        heifTransforms = evidence.heif.map { $0.transforms.map(\.report) }

        let decision = PhotoReport.decide(evidence)
        exifOrientation = decision.orientation.exif
        rotation = decision.orientation.rotation
        mirrored = decision.orientation.isMirrored
        orientationSource = decision.source
        sources = decision.ordered.map {
            PhotoSource(
                source: $0.kind, location: $0.location, value: $0.rawValue, exifOrientation: $0.orientation?.exif)
        }
        if let width = storedWidth, let height = storedHeight, width > 0, height > 0 {
            let shown =
                evidence.heif.map {
                    HEIFItemTransform.displaySize(width: width, height: height, transforms: $0.transforms)
                }
                ?? decision.orientation.displaySize(width: width, height: height)
            displayWidth = shown.width
            displayHeight = shown.height
            layout = Layout(width: shown.width, height: shown.height)
        }
        (camera, cameraEvidence) = PhotoReport.statedCamera(exif)
        motionVideo = nil

        findings += evidence.readerFindings
        findings += PhotoReport.findings(evidence, decision: decision)
        findings += PhotoReport.rotatedPixelsFindings(evidence, orientation: decision.orientation)
        if let displayWidth, let displayHeight {
            findings += PhotoReport.thumbnailShapeFindings(evidence, width: displayWidth, height: displayHeight)
        }
    }

    struct Decision {
        var orientation: Orientation
        var source: PhotoOrientationSource
        /// The deciding statement, if any, then the others in the order found.
        var ordered: [OrientationStatement]
        var decider: OrientationStatement?
    }

    static func decide(_ evidence: PhotoEvidence) -> Decision {
        var statements = evidence.statements
        if let heif = evidence.heif {
            // The transforms are a statement of their own, listed first: they decide.
            let turnsOrMirrors = heif.transforms.filter {
                if case .cleanAperture = $0 { return false }
                return true
            }
            let location =
                turnsOrMirrors.isEmpty
                ? "no irot or imir" : heif.transforms.map(\.summary).joined(separator: ", ") + ", in ipma order"
            let orientation = Orientation(heifTransforms: heif.transforms)
            let statement = OrientationStatement(
                kind: .heif, location: location, rawValue: nil, orientation: orientation)
            statements.removeAll { $0.kind == .heif }
            return Decision(
                orientation: orientation ?? .up, source: turnsOrMirrors.isEmpty ? .none : .heif,
                ordered: [statement] + statements, decider: statement)
        }
        let inFile = statements.filter { $0.kind != .sidecar }
        // The first EXIF statement decides even when its value is invalid: viewers then show the
        // picture as stored, and XMP does not step in.
        let decider = inFile.first { $0.kind == .exif } ?? inFile.first { $0.kind == .xmp && $0.orientation != nil }
        guard let decider else { return Decision(orientation: .up, source: .none, ordered: statements, decider: nil) }
        var rest = statements
        if let index = rest.firstIndex(of: decider) { rest.remove(at: index) }
        return Decision(
            orientation: decider.orientation ?? .up,
            source: decider.orientation == nil ? .none : (decider.kind == .exif ? .exif : .xmp),
            ordered: [decider] + rest, decider: decider)
    }

    static func findings(_ evidence: PhotoEvidence, decision: Decision) -> [Finding] {
        var findings: [Finding] = []
        let shown = decision.orientation
        for statement in evidence.statements where statement.kind != .heif && statement.orientation == nil {
            let raw = statement.rawValue.map(String.init) ?? "?"
            findings.append(
                .exifInvalid, .warning,
                "\(statement.kind == .exif ? "EXIF" : "XMP") Orientation (\(statement.location)) is '\(raw)', not 1-8: viewers disagree on such files"
            )
        }
        if let decider = decision.decider, decider.kind == .heif, decider.orientation == nil {
            findings.append(
                .heifTransformInvalid, .error,
                "the HEIF transformative properties (\(decider.location)) are not valid: readers disagree")
        }
        if shown.isMirrored {
            let name =
                decision.source == .heif ? "HEIF imir" : "\(decision.source == .xmp ? "XMP" : "EXIF") orientation"
            findings.append(
                .mirrored, .warning,
                "the \(name) mirrors the picture (orientation \(shown.exif)); viewers that ignore it, and tools that report only a rotation, miss it"
            )
        }
        let others = evidence.statements.filter {
            $0.kind != .sidecar && $0 != decision.decider && $0.orientation != nil
        }
        if let decider = decision.decider, decider.orientation != nil || decider.kind == .heif {
            for other in others {
                guard let stated = other.orientation else { continue }
                let deciderName = describe(decider)
                if stated != shown {
                    let consequence =
                        decider.kind == .heif
                        ? "HEIF readers obey irot/imir; tools that apply EXIF show it as orientation \(stated.exif)"
                        : "\(name(of: decider.kind)) decides; tools that read \(name(of: other.kind)) disagree"
                    findings.append(
                        .orientationConflict, .warning,
                        "\(deciderName) says orientation \(shown.exif) but \(describe(other)) says \(stated.exif): \(consequence)"
                    )
                } else if decider.kind == .heif, shown != .up {
                    findings.append(
                        .orientationDuplicated, .info,
                        "both \(deciderName) and \(describe(other)) carry orientation \(shown.exif); a pipeline that applies both rotates twice"
                    )
                }
            }
        }
        for sidecar in evidence.statements where sidecar.kind == .sidecar {
            guard let stated = sidecar.orientation, stated != shown else { continue }
            findings.append(
                .sidecarConflict, .warning,
                "the sidecar \(sidecar.location) says orientation \(stated.exif) but the file itself is shown as \(shown.exif): the application that wrote the sidecar shows it differently"
            )
        }
        return findings
    }

    /// EXIF `PixelXDimension`/`PixelYDimension` (or the EXIF thumbnail's shape) transposed against
    /// the stored pixels while the orientation turns a quarter: software turned the pixels upright
    /// and left the tag, so every viewer that obeys the tag turns them again.
    static func rotatedPixelsFindings(_ evidence: PhotoEvidence, orientation: Orientation) -> [Finding] {
        guard evidence.heif == nil, orientation.swapsDimensions, let width = evidence.storedWidth,
            let height = evidence.storedHeight, width != height, let exif = evidence.exif
        else { return [] }
        var evidenceText: String?
        if let x = exif.pixelXDimension, let y = exif.pixelYDimension, x == height, y == width {
            evidenceText = "EXIF PixelXDimension×PixelYDimension is \(x)x\(y), the stored pixels are \(width)x\(height)"
        } else if let thumbnail = exif.thumbnail, let tw = thumbnail.width, let th = thumbnail.height, tw != th,
            (tw > th) != (width > height)
        {
            evidenceText = "the EXIF thumbnail is \(tw)x\(th), the stored pixels are \(width)x\(height)"
        }
        guard let evidenceText else { return [] }
        return [
            Finding(
                .pixelsAlreadyRotated, severity: .warning,
                message:
                    "\(evidenceText): software turned the pixels and left Orientation \(orientation.exif), so viewers that obey it turn the picture a second time"
            )
        ]
    }

    /// A HEIF thumbnail item (`thmb`) shown as a portrait while the primary item is shown as a
    /// landscape, or the reverse: each item is shown with its own `irot`/`imir`, so a tool that
    /// turned only the primary item's left its thumbnail turned the old way, and every file
    /// browser that shows the thumbnail shows it sideways. Square pictures have no shape to
    /// disagree with.
    static func thumbnailShapeFindings(_ evidence: PhotoEvidence, width: Int, height: Int) -> [Finding] {
        guard let heif = evidence.heif, width != height else { return [] }
        return heif.thumbnails.compactMap { thumbnail in
            guard let storedWidth = thumbnail.width, let storedHeight = thumbnail.height, storedWidth > 0,
                storedHeight > 0
            else { return nil }
            let shown = HEIFItemTransform.displaySize(
                width: storedWidth, height: storedHeight, transforms: thumbnail.heifTransforms)
            guard shown.width != shown.height, (shown.width > shown.height) != (width > height) else { return nil }
            return Finding(
                .thumbnailShapeDiffers, severity: .warning,
                message:
                    "the \(thumbnail.location) is shown \(shown.width)x\(shown.height) but the picture \(width)x\(height): viewers that show the thumbnail (file browsers, galleries) show it turned a quarter from the picture"
            )
        }
    }

    /// A camera named by the EXIF lens model (iPhones write `iPhone 7 back camera 3.99mm f/1.8`).
    static func statedCamera(_ exif: EXIFMetadata?) -> (CameraPosition?, String?) {
        guard let exif else { return (nil, nil) }
        for (key, value) in [("LensModel", exif.lensModel), ("Model", exif.model)] {
            guard let value else { continue }
            let words = value.lowercased().split(whereSeparator: { !$0.isLetter })
            let position: CameraPosition? =
                words.contains("front") ? .front : (words.contains("back") || words.contains("rear") ? .back : nil)
            if let position { return (position, "EXIF \(key) = \(value)") }
        }
        return (nil, nil)
    }

    static func name(of kind: OrientationStatement.Kind) -> String {
        switch kind {
        case .exif: "EXIF"
        case .xmp: "XMP"
        case .heif: "irot/imir"
        case .sidecar: "the sidecar"
        }
    }

    static func describe(_ statement: OrientationStatement) -> String {
        switch statement.kind {
        case .heif: "irot/imir (\(statement.location))"
        default: "\(name(of: statement.kind)) (\(statement.location))"
        }
    }
}

extension MediaReport {
    /// A photo's report: no streams, no video, the decision in `photo`. The format's name is the
    /// project's own (`jpeg`, `heic`, …); a motion photo's video is decided by the video rules.
    public init(photo evidence: PhotoEvidence) {
        var findings: [Finding] = []
        var photo = PhotoReport(evidence: evidence, findings: &findings)
        if let motion = evidence.motionVideo {
            let report = MediaReport(probe: motion)
            photo.motionVideo = report.video
            findings += report.findings.filter { $0.kind != .noVideo }.map { finding in
                var finding = finding
                finding.message = "motion video: " + finding.message
                return finding
            }
        }
        let format = FormatReport(
            name: photo.format, longName: evidence.formatDetail ?? photo.format, size: evidence.fileSize, streamCount: 0
        )
        self.init(path: evidence.path, format: format, streams: [], video: nil, photo: photo, findings: findings)
        suggestActions()
    }

    /// The decided orientation of whatever the file shows: the photo's, or the primary video
    /// stream's when it is one of the eight; nil otherwise.
    public var displayOrientation: Orientation? {
        if let photo { return photo.orientation }
        return video?.exifOrientation.flatMap(Orientation.init(exif:))
    }
}

/// A rectangle of whole pixels in a picture, top-left origin.
public struct PixelRect: Sendable, Hashable {
    public var x: Int, y: Int, width: Int, height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The same region in a copy of a `full`-sized picture that was decoded at `picture`'s size.
    public func scaled(from full: (width: Int, height: Int), to picture: Picture) -> PixelRect {
        let sx = Double(picture.width) / Double(max(1, full.width))
        let sy = Double(picture.height) / Double(max(1, full.height))
        let left = Int((Double(x) * sx).rounded()), top = Int((Double(y) * sy).rounded())
        let right = min(picture.width, max(left + 1, Int((Double(x + width) * sx).rounded())))
        let bottom = min(picture.height, max(top + 1, Int((Double(y + height) * sy).rounded())))
        return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
    }
}

extension HEIFItemTransform {
    /// The region of the stored picture that `clap` keeps, in stored pixels, wherever in the
    /// `ipma` order it stands (a `clap` after an `irot` is measured on the turned picture); nil
    /// when nothing crops. The centre follows ISO/IEC 14496-12: `(size - 1) / 2 + offset`.
    public static func storedCrop(width: Int, height: Int, transforms: [HEIFItemTransform]) -> PixelRect? {
        guard width > 0, height > 0 else { return nil }
        var region = PixelRect(x: 0, y: 0, width: width, height: height)
        var applied: [HEIFItemTransform] = []
        var cropped = false
        for transform in transforms {
            defer { applied.append(transform) }
            guard case .cleanAperture(let clapWidth, let clapHeight, let horizontal, let vertical) = transform,
                clapWidth.isFinite, clapHeight.isFinite, horizontal.isFinite, vertical.isFinite
            else { continue }
            let orientation = Orientation(heifTransforms: applied) ?? .up
            let shown = orientation.displaySize(width: region.width, height: region.height)
            let keepWidth = max(1, min(shown.width, Int(clapWidth.rounded())))
            let keepHeight = max(1, min(shown.height, Int(clapHeight.rounded())))
            let left = max(
                0, min(shown.width - keepWidth, Int((horizontal + Double(shown.width - keepWidth) / 2).rounded())))
            let top = max(
                0, min(shown.height - keepHeight, Int((vertical + Double(shown.height - keepHeight) / 2).rounded())))
            // Back to the stored picture through the inverse of what was applied so far.
            let inverse = orientation.inverse
            let a = inverse.displayPixel(x: left, y: top, width: shown.width, height: shown.height)
            let b = inverse.displayPixel(
                x: left + keepWidth - 1, y: top + keepHeight - 1, width: shown.width, height: shown.height)
            region = PixelRect(
                x: region.x + min(a.x, b.x), y: region.y + min(a.y, b.y), width: abs(a.x - b.x) + 1,
                height: abs(a.y - b.y) + 1)
            cropped = true
        }
        return cropped ? region : nil
    }
}

extension Picture {
    /// The part of the picture inside `rect` (clipped to the picture).
    public func cropped(_ rect: PixelRect) -> Picture {
        let left = max(0, min(width, rect.x)), top = max(0, min(height, rect.y))
        let right = max(left, min(width, rect.x + rect.width)), bottom = max(top, min(height, rect.y + rect.height))
        var out = Picture(width: right - left, height: bottom - top)
        out.paste(self, x: -left, y: -top)
        return out
    }
}
