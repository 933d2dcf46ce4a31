import VidorientCore
import VidorientFFmpeg
import VidorientIO
import VidorientISOBMFF
import VidorientPhoto
import VidorientPhotoDecoding

/// A photo's picture for thumbnails: the report is made first, by the photo readers, and its
/// decision is what gets applied, once, on the small picture (as libvips does).
///
/// Pixels come from the cheapest decoder that gives enough of them: for HEIF, libheif's decoding of
/// a thumbnail item when one is large enough, else FFmpeg's HEVC decoder on every tile at once
/// (`HEIFTiles`), else libheif (AVIF, 10-bit; transformations off); libjpeg-turbo with DCT scaling for JPEG and
/// for a raw file's embedded JPEG preview (CMYK and YCCK turned into RGB), libwebp's animation
/// decoder for an animated WebP's first frame, libwebp at the size asked for a still WebP, libpng
/// for PNG, FFmpeg for TIFF. What a decoder leaves larger is shrunk by `Picture.resized`, so a
/// JPEG, PNG or WebP never opens FFmpeg.
struct PhotoFrames {
    let path: String
    let report: MediaReport
    let evidence: PhotoEvidence

    /// The pictures of a photo `Prober` read: its evidence, and the report whose decision is applied.
    init(path: String, evidence: PhotoEvidence, report: MediaReport) {
        self.path = path
        self.evidence = evidence
        self.report = report
    }

    /// The photo as `request` asks: upright (unless `asStored`), fitted to the requested size.
    func frame(_ request: ThumbnailRequest) throws(InputError) -> Thumbnailer.Frame {
        guard let photo = report.photo else { throw InputError(path: path, reason: "not a photo") }
        let transforms = evidence.heif?.transforms ?? []
        // The stored size as displayed before the orientation: a HEIF clean aperture crops first.
        let crop = HEIFItemTransform.storedCrop(
            width: evidence.storedWidth ?? 0, height: evidence.storedHeight ?? 0, transforms: transforms)
        let preview = rawPreview
        var storedWidth = crop?.width ?? evidence.storedWidth ?? 0
        var storedHeight = crop?.height ?? evidence.storedHeight ?? 0
        if let preview, let width = preview.width, let height = preview.height {
            (storedWidth, storedHeight) = (width, height)
        }
        guard storedWidth > 0, storedHeight > 0 else {
            // A file cut before its frame header: say that, not only that no size is known.
            let cut = report.findings.first { $0.kind == .fileTruncated }.map { ": \($0.message)" } ?? ""
            throw InputError(path: path, reason: "the photo states no size\(cut)")
        }
        // Every decoder here makes the whole stored picture (or a DCT-scaled one) first: a size the
        // header merely claims must not become gigabytes. A clean aperture's crop is cut from the
        // whole picture, so that is what is checked (a 100x100 crop of a HEIF claiming
        // 4294967295x4294967295 overflowed the decode's cost and trapped).
        let (decodedWidth, decodedHeight) =
            crop == nil ? (storedWidth, storedHeight) : (evidence.storedWidth ?? 0, evidence.storedHeight ?? 0)
        try refuseOver(
            PhotoFrames.maximumStoredPixels, decodedWidth, decodedHeight, path: path, what: "the photo",
            purpose: "decoded for a thumbnail")
        let geometry: ThumbnailGeometry
        do {
            geometry = try ThumbnailGeometry(
                storedWidth: storedWidth, storedHeight: storedHeight, orientation: photo.orientation, request: request)
        } catch {
            throw InputError(path: path, reason: error.description)
        }
        // The decode's memory reserved first from the process's budget: several workers each
        // decoding a phone photo whole must not add up past it (issue 32); a job waits instead.
        // The reservation lasts until the decoded picture is shrunk and freed: a 12 MP AVIF is
        // 36 MB of RGB after its decoder's buffers are gone, and sixteen workers each holding one
        // while they shrink it took 619 MB.
        let cost = decodeCost(
            storedWidth: storedWidth, storedHeight: storedHeight, minimumWidth: geometry.scaledWidth,
            minimumHeight: geometry.scaledHeight, preview: preview)
        let (stored, warning) = try MemoryBudget.decoding.withReservation(cost) { () throws(InputError) in
            let (decoded, warning) = try decodeStored(
                minimumWidth: geometry.scaledWidth, minimumHeight: geometry.scaledHeight, crop: crop, preview: preview)
            guard decoded.width != geometry.scaledWidth || decoded.height != geometry.scaledHeight else {
                return (decoded, warning)
            }
            return (decoded.resized(width: geometry.scaledWidth, height: geometry.scaledHeight), warning)
        }
        return Thumbnailer.Frame(
            picture: geometry.orient(stored), stored: stored, time: nil, report: report,
            decoderWarnings: warning.map { [Finding.decoderWarning($0, decoder: "libjpeg")] } ?? [])
    }

    /// A raw file's largest embedded JPEG preview: raw sensor data is not a picture FFmpeg decodes.
    var rawPreview: EmbeddedImage? {
        switch evidence.format {
        case .tiff: guard let detail = evidence.formatDetail, detail != "tiff" else { return nil }
        case .raw: break
        default: return nil
        }
        return evidence.previews.first { $0.codec == "jpeg" && $0.offset != nil && $0.width != nil }
    }

    /// About the most memory decoding takes, by the decoder `decodeStored` picks, measured on
    /// 12 MP photos (peak RSS less the process's own, each decoder's large buffers unmapped when
    /// freed: `System.mapLargeBlocks`): libheif's whole-picture decode about 5.3 bytes a stored
    /// pixel at 8 bits (AVIF) and 10 at 10 bits (HEIC), counted as 8 and 16; FFmpeg decoding one
    /// HEVC item whole 4.5, counted as 6, and a grid's tiles pasted into one 4:2:0 picture about
    /// 3; libjpeg-turbo 4 a decoded pixel (after DCT scaling) beside the file read whole; libwebp
    /// 4 a stored pixel (a lossless WebP is held whole as ARGB; a lossy one far less); libpng 3 (its
    /// RGB picture, and a row or two of its own); FFmpeg's still decoders 8. Over rather than
    /// under: a reservation too large only makes a job wait, and two 12 MP 8-bit AVIFs still fit
    /// the budget at once.
    func decodeCost(storedWidth: Int, storedHeight: Int, minimumWidth: Int, minimumHeight: Int, preview: EmbeddedImage?)
        -> Int
    {
        let stored = storedWidth * storedHeight
        let file = evidence.fileSize ?? 0
        switch evidence.format {
        case .heif:
            // What `HEIFTiles` takes: the decoder's picture and the planes pasted from it, two bytes
            // a sample past 8 bits. The rest, libheif's whole decode.
            let itemType = evidence.heif?.itemType
            let tiled =
                HEIFTiles.Codec(primaryItemType: itemType).map {
                    HEIFTiles.takes($0, from: storedWidth, storedHeight, at: minimumWidth, minimumHeight)
                } ?? false
            let (width, height) = (evidence.storedWidth ?? storedWidth, evidence.storedHeight ?? storedHeight)
            let deep = (evidence.bitDepth ?? 16) > 8
            let perPixel = tiled ? (itemType == "grid" ? 3 : 6) * (deep ? 2 : 1) : (deep ? 16 : 8)
            return perPixel * width * height + file
        case .jpeg,
            .tiff where preview != nil, .raw where preview != nil:
            // libjpeg-turbo's DCT scaling: 1/2, 1/4 or 1/8 while it still covers the request.
            var scale = 1
            while scale < 8 && storedWidth / (2 * scale) >= minimumWidth && storedHeight / (2 * scale) >= minimumHeight
            {
                scale *= 2
            }
            return 4 * stored / (scale * scale) + (preview?.length ?? file)
        case .webp where evidence.formatDetail != "webp animated":
            return 4 * stored + file
        case .png:
            return 3 * stored + file
        default:
            return 8 * stored + file
        }
    }

    /// The stored pixels at a size no smaller than asked where the decoder can shrink while
    /// decoding, and libjpeg's warning about them, if it gave one.
    private func decodeStored(minimumWidth: Int, minimumHeight: Int, crop: PixelRect?, preview: EmbeddedImage?)
        throws(InputError) -> (Picture, warning: String?)
    {
        switch evidence.format {
        case .heif:
            // A clean aperture crops the full picture: ask for enough pixels that the crop still covers the request.
            let fullWidth = evidence.storedWidth ?? minimumWidth, fullHeight = evidence.storedHeight ?? minimumHeight
            let needWidth = crop.map { minimumWidth * fullWidth / max(1, $0.width) + 1 } ?? minimumWidth
            let needHeight = crop.map { minimumHeight * fullHeight / max(1, $0.height) + 1 } ?? minimumHeight
            // HEVC and AV1: the tiles decoded by FFmpeg on every core (`HEIFTiles` says which it
            // takes); the rest by libheif.
            if HEIFTiles.Codec(primaryItemType: evidence.heif?.itemType) != nil,
                let picture = try HEIFTiles.decode(
                    path: path, crop: crop, width: minimumWidth, height: minimumHeight, thumbnailWidth: needWidth,
                    thumbnailHeight: needHeight, maximumBytes: PhotoFrames.maximumEncodedBytes,
                    maximumTilePixels: HEIFDecoder.maximumDecodedPixels)
            {
                return (picture, nil)
            }
            let decoded = try HEIFDecoder.decode(path: path, minimumWidth: needWidth, minimumHeight: needHeight)
            guard let crop else { return (decoded.picture, nil) }
            return (decoded.picture.cropped(crop.scaled(from: (fullWidth, fullHeight), to: decoded.picture)), nil)
        case .jpeg:
            return try decodeJPEG(try bytes(at: 0, count: evidence.fileSize), minimumWidth, minimumHeight)
        case .webp where evidence.formatDetail == "webp animated":
            // FFmpeg's WebP decoder reads no animation: libwebp composes the first frame.
            let webp = try bytes(at: 0, count: evidence.fileSize)
            do { return (try WebPAnimation.firstFrame(webp), nil) } catch {
                throw InputError(path: path, reason: "could not decode the webp animation: \(error)")
            }
        case .webp:
            // libwebp shrinks while it decodes: a lossy photo is never held whole.
            let (width, height) = (evidence.storedWidth ?? 0, evidence.storedHeight ?? 0)
            try refuseOver(WebPStill.maximumPixels, width, height, path: path, what: "the webp", purpose: "decoded")
            let webp = try bytes(at: 0, count: evidence.fileSize)
            do { return (try WebPStill.decode(webp, width: minimumWidth, height: minimumHeight), nil) } catch {
                throw InputError(path: path, reason: "could not decode the webp: \(error)")
            }
        case .png:
            let (width, height) = (evidence.storedWidth ?? 0, evidence.storedHeight ?? 0)
            try refuseOver(PNGStill.maximumPixels, width, height, path: path, what: "the png", purpose: "decoded whole")
            let png = try bytes(at: 0, count: evidence.fileSize)
            do { return (try PNGStill.decode(png), nil) } catch {
                throw InputError(path: path, reason: "could not decode the png: \(error)")
            }
        case .tiff where preview != nil, .raw where preview != nil:
            return try decodeJPEG(try bytes(at: preview!.offset!, count: preview!.length), minimumWidth, minimumHeight)
        default:
            let (width, height) = (evidence.storedWidth ?? 0, evidence.storedHeight ?? 0)
            try refuseOver(
                FFmpegStill.maximumPixels, width, height, path: path, what: "the picture", purpose: "decoded whole")
            return (try FFmpegStill.decode(path: path, width: minimumWidth, height: minimumHeight), nil)
        }
    }

    private func decodeJPEG(_ jpeg: [UInt8], _ minimumWidth: Int, _ minimumHeight: Int) throws(InputError) -> (
        Picture, warning: String?
    ) {
        do {
            return try JPEGDecoder.decodeWithWarning(jpeg, minimumWidth: minimumWidth, minimumHeight: minimumHeight)
        } catch {
            throw InputError(path: path, reason: "could not decode the jpeg: \(error)")
        }
    }

    /// The most stored pixels decoded for one picture (a 16-bit grid or a PNG header can claim
    /// four billion): 2^28, twice the largest phone sensors.
    static let maximumStoredPixels = 1 << 28

    /// The most encoded bytes read into memory for one picture: far above any camera's JPEG, far
    /// below what a file that merely claims a size could make us allocate.
    static let maximumEncodedBytes = 256 << 20

    private func bytes(at offset: Int, count: Int?) throws(InputError) -> [UInt8] {
        let file: FileBytes
        do { file = try FileBytes(path: path) } catch { throw error.at(path: path) }
        let count = count ?? Int(file.size)
        guard count <= PhotoFrames.maximumEncodedBytes else {
            throw InputError(
                path: path,
                reason:
                    "the picture's \(count) bytes are more than the \(PhotoFrames.maximumEncodedBytes) read for a thumbnail"
            )
        }
        do { return try file.read(at: Int64(offset), count: count) } catch {
            throw error.at(path: path)
        }
    }
}

/// Refuses a picture the file claims is over `limit` pixels. Both numbers are the file's (a TIFF's
/// LONGs): 2³² × 2³² passes `Int.max` (issue 28: a trap), so the product is checked for overflow.
private func refuseOver(
    _ limit: Int, _ width: Int, _ height: Int, path: String, what: String, purpose: String
) throws(InputError) {
    let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
    guard !overflow, pixels <= limit else {
        throw InputError(
            path: path, reason: "\(what) claims \(width)x\(height) pixels, more than the \(limit) \(purpose)")
    }
}
