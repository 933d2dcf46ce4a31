package import VidorientCore
package import VidorientIO
import VidorientISOBMFF

/// HEIF, HEIC and AVIF: the primary item's structure from the box layer (`HEIFStructure`), its
/// Exif item through the one EXIF reader, its XMP item, and a motion photo's video.
package enum HEIFPhotoReader {
    package static func read(_ source: some ByteSource, path: String, format: MediaFormat) throws(PhotoFormatError)
        -> PhotoEvidence
    {
        let structure = try HEIFStructure(source)
        var evidence = PhotoEvidence(path: path, format: format)
        let heif = structure.evidence
        evidence.heif = heif
        evidence.codec = heif.tileCodec ?? structure.codec(of: structure.primaryItemID)
        if let size = structure.storedSize { (evidence.storedWidth, evidence.storedHeight) = (size.width, size.height) }
        evidence.bitDepth = structure.bitDepth
        if !structure.ignoredReferences.isEmpty {
            evidence.readerFindings.append(
                .heifReferenceIgnored, .info,
                "\(structure.ignoredReferences.joined(separator: "; ")): passed over, as libheif passes it over (it decodes the file)"
            )
        }
        if structure.repeatedEntries.contains(structure.primaryItemID) {
            evidence.readerFindings.append(
                .heifRepeatedAssociation, .warning,
                "'ipma' lists the primary item \(structure.primaryItemID) in more than one entry: libheif (and so what decodes with it) reads the first entry only, and so does vidorient; exiftool reads every entry, its irot/imir may differ"
            )
        }
        evidence.hasAlpha = heif.auxiliary.contains("alpha")
        if let columns = heif.gridColumns, let rows = heif.gridRows {
            evidence.formatDetail = "\(format) grid \(columns)x\(rows)"
        }
        if heif.metaAfterMediaData {
            evidence.formatDetail = (evidence.formatDetail ?? "\(format)") + ", meta after mdat"
        }
        // Metadata items are read as far as they go: a broken Exif item is a finding, not an
        // unreadable photo (the picture and its irot/imir are still there).
        do {
            if let exif = try structure.exifTIFF(in: source) {
                PhotoBytes.addEXIF(
                    exif.bytes, fileOffset: exif.offset.map(Int.init), location: "Exif item", to: &evidence)
            }
        } catch {
            evidence.readerFindings.append(.exifUnreadable, .warning, "Exif item: \(error.reason)")
        }
        do {
            if let xmp = try structure.xmp(in: source) {
                PhotoBytes.addXMP(xmp, location: "XMP item", to: &evidence)
            }
        } catch {
            evidence.readerFindings.append(.xmpUnreadable, .warning, "XMP item: \(error.reason)")
        }
        evidence.motionVideo = structure.motionVideoProbe(path: path, source: source)
        if let truncation = structure.truncation {
            evidence.readerFindings.append(
                PhotoBytes.truncated(
                    "\(truncation): the picture's data is cut short", decoders: "libheif refuses to decode it"))
        }
        return evidence
    }
}
