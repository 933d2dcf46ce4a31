package import VidorientCore
package import VidorientIO
import VidorientISOBMFF

/// A planned change of a photo's orientation tag: what the file showed, what it will show, each
/// place that changes (for people), and the bytes (`FileEdit`, against the original file).
package struct OrientationEdit: Sendable, Hashable {
    package var format: MediaFormat
    /// What the file showed before, by `PhotoReport`'s decision; nil when not one of the eight.
    package var before: Orientation?
    package var after: Orientation
    /// Each place written, for a person: `APP1 EXIF IFD0 Orientation: 6 -> 1`,
    /// `new eXIf chunk before IDAT`, `irot of item 1: 3 -> 0`, `XMP tiff:Orientation: 6 -> 1`.
    package var places: [String]
    package var edit: FileEdit
    /// What the reader said of damage (`file-truncated`, `file-damaged`): the tag is still fixed
    /// (it is before the picture), and the fix says so.
    package var damage: [Finding] = []

    package init(format: MediaFormat, before: Orientation?, after: Orientation, places: [String], edit: FileEdit) {
        self.format = format
        self.before = before
        self.after = after
        self.places = places
        self.edit = edit
    }
}

/// Plans the byte-minimal change that makes a photo show `target`: only the tag's bytes where the
/// tag exists (and a PNG chunk's CRC), else the smallest correct insertion. One function per
/// format family; this enum sends each file to its planner.
///
/// The rules every planner follows (docs/fix.md, "Photos"):
/// - Every in-file statement is made to say `target`: EXIF IFD0 Orientation, every XMP
///   `tiff:Orientation`, PNG's `eXIf` and ImageMagick's `Raw profile type exif` text chunk.
/// - A file with EXIF but no Orientation entry gets a new IFD0 (old entries + 274, in tag order)
///   at the end of its TIFF data, the header repointed: no other offset moves.
/// - A file with no EXIF gets a minimal one, unless XMP already states its orientation (then the
///   XMP digits change and nothing is inserted: the smallest edit that shows `target`).
/// - Nothing to do (the file shows `target` and no statement disagrees) is an empty edit.
package enum PhotoTagFix {
    /// `source` is the whole file; `format` is `MediaFormat(signature:)`'s answer for it.
    package static func plan(_ source: some ByteSource, format: MediaFormat, target: Orientation)
        throws(PhotoFormatError)
        -> OrientationEdit
    {
        switch format {
        case .movie, .other: throw .unsupported("not a photo (\(format))")
        case .heif: return try HEIFOrientationFix.plan(source, target: target)
        default: break
        }
        let evidence = try PhotoReader.read(source, path: "", format: format)
        let before = shown(evidence)
        let damage = evidence.readerFindings.filter { $0.kind.map(Finding.damageCodes.contains) == true }
        let stated = evidence.statements.filter { $0.kind == .exif || $0.kind == .xmp }
        if before == target, stated.allSatisfy({ $0.orientation == target }) {
            var unchanged = OrientationEdit(format: format, before: before, after: target, places: [], edit: .none)
            unchanged.damage = damage
            return unchanged
        }
        let xmpDecides = !stated.contains { $0.kind == .exif } && stated.contains { $0.kind == .xmp }
        let changes: Changes
        switch format {
        case .jpeg: changes = try JPEGOrientationFix.plan(source, target: target, xmpDecides: xmpDecides)
        case .png: changes = try PNGOrientationFix.plan(source, target: target, xmpDecides: xmpDecides)
        case .webp: changes = try WebPOrientationFix.plan(source, target: target, xmpDecides: xmpDecides)
        case .tiff: changes = try TIFFOrientationFix.plan(source, target: target, xmpDecides: xmpDecides)
        default: throw .unsupported("fixing \(format) is not built yet")
        }
        let edit: FileEdit
        do { edit = try FileEdit(changes.splices) } catch {
            throw error.context("the planned edit is inconsistent")
        }
        var planned = OrientationEdit(format: format, before: before, after: target, places: changes.places, edit: edit)
        planned.damage = damage
        return planned
    }

    /// What the file shows by `PhotoReport`'s decision: nil when the deciding statement holds a
    /// value that is not one of the eight, `.up` when nothing states an orientation.
    package static func shown(_ evidence: PhotoEvidence) -> Orientation? {
        var findings: [Finding] = []
        let report = PhotoReport(evidence: evidence, findings: &findings)
        if report.orientationSource != .none { return report.orientation }
        // The first EXIF statement decides even when invalid (see `PhotoReport.decide`).
        let inFile = evidence.statements.filter { $0.kind == .exif }
        return inFile.first.map { $0.orientation } ?? .up
    }

    /// What a format's planner found to change: the splices and, for people, each place.
    struct Changes {
        var splices: [ByteSplice] = []
        var places: [String] = []

        /// Every `tiff:Orientation` in `packet` (which starts at `at` in the file) set to `target`.
        /// Only a one-digit value is rewritten (the same length); any other is refused.
        mutating func addXMP(_ packet: [UInt8], at: Int64, target: Orientation, location: String)
            throws(PhotoFormatError)
        {
            for (value, digits) in XMPOrientation.valueLocations(in: packet) where value != target.exif {
                guard digits.count == 1 else {
                    throw .unsupported(
                        "\(location): tiff:Orientation '\(value)' is not one digit; it was left alone")
                }
                splices.append(
                    ByteSplice(
                        offset: at + Int64(digits.lowerBound), old: [packet[digits.lowerBound]],
                        new: [UInt8(ascii: "0") + UInt8(target.exif)]))
                places.append("\(location) tiff:Orientation: \(value) -> \(target.exif)")
            }
        }

        /// Same as `addXMP` but returns the rewritten packet instead, for containers that
        /// checksum it (PNG): nil when nothing changes.
        func rewrittenXMP(_ packet: [UInt8], target: Orientation, location: String) throws(PhotoFormatError)
            -> (packet: [UInt8], places: [String])?
        {
            var copy = packet
            var places: [String] = []
            for (value, digits) in XMPOrientation.valueLocations(in: packet) where value != target.exif {
                guard digits.count == 1 else {
                    throw .unsupported(
                        "\(location): tiff:Orientation '\(value)' is not one digit; it was left alone")
                }
                copy[digits.lowerBound] = UInt8(ascii: "0") + UInt8(target.exif)
                places.append("\(location) tiff:Orientation: \(value) -> \(target.exif)")
            }
            return places.isEmpty ? nil : (copy, places)
        }
    }
}
