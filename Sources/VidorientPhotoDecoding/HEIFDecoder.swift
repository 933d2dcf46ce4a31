import CLibHeif
package import VidorientCore
import VidorientIO

/// Stored pixels of a HEIF/HEIC/AVIF image through libheif, with libheif's own `irot`, `imir`
/// and `clap` switched off: the orientation applied afterwards is the one `inspect` decided, so
/// the report and the picture cannot disagree.
package enum HEIFDecoder {
    /// Pixels this decoder agrees to produce at most (a 16-bit HEIF grid can claim 4 billion).
    package static let maximumPixels = 256 * 1024 * 1024

    /// Pixels decoded whole at most: the codec's frames, libheif's planes, its interleaved RGB and
    /// the copy made here take about 12.6 bytes a pixel (a 1.8 KB AVIF of 12000x12000 peaked at
    /// 1.8 GB), so 24 megapixels stays within the 400 MB any single input may take. A larger
    /// HEVC grid is thumbnailed from its tiles (`HEIFTiles`) or its thumbnail item, not from here.
    package static let maximumDecodedPixels = 24_000_000

    /// A decoded picture and what it was decoded from.
    package struct Decoded: Sendable {
        /// RGB, as stored: before any transformative property.
        package var picture: Picture
        /// True when a thumbnail item was large enough and was decoded instead of the primary item.
        package var fromThumbnail: Bool
    }

    /// Decodes the primary item, or the smallest thumbnail item whose stored size covers
    /// `minimumWidth`×`minimumHeight` in stored pixels (nil: the primary item), as
    /// `heif-thumbnailer` does.
    package static func decode(path: String, minimumWidth: Int? = nil, minimumHeight: Int? = nil) throws(InputError)
        -> Decoded
    {
        func failure(_ what: String, _ error: heif_error) -> InputError {
            // libheif ends some messages with a newline: the reason is one line.
            let message = String(cString: error.message).lowercased()
            let line = message.split(whereSeparator: \.isNewline).joined(separator: " ")
            return InputError(path: path, reason: "\(what): \(line)")
        }
        try LibHeif.load(for: path)
        guard let context = heif_context_alloc() else { throw InputError(path: path, reason: "out of memory") }
        defer { heif_context_free(context) }
        // A grid's tiles on every core (libheif's default is four threads, whatever the machine).
        heif_context_set_max_decoding_threads(context, Int32(Processors.available))
        var error = path.withPathCString { heif_context_read_from_file(context, $0, nil) }
        guard error.code == heif_error_Ok else { throw failure("could not read the heif structure", error) }
        var primary: OpaquePointer?
        error = heif_context_get_primary_image_handle(context, &primary)
        guard error.code == heif_error_Ok, let primary else { throw failure("no primary image", error) }
        defer { heif_image_handle_release(primary) }

        var handle = primary
        var fromThumbnail = false
        if let minimumWidth, let minimumHeight,
            let thumbnail = smallestThumbnail(of: primary, minimumWidth: minimumWidth, minimumHeight: minimumHeight)
        {
            handle = thumbnail
            fromThumbnail = true
        }
        defer { if fromThumbnail { heif_image_handle_release(handle) } }

        let width = Int(heif_image_handle_get_ispe_width(handle))
        let height = Int(heif_image_handle_get_ispe_height(handle))
        guard width > 0, height > 0 else { throw InputError(path: path, reason: "the image has no size (ispe)") }
        // `ispe` holds 32-bit sides: their product can pass Int's range.
        let (claimed, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, claimed <= maximumDecodedPixels else {
            throw InputError(
                path: path,
                reason:
                    "the image claims \(width)x\(height) pixels, more than the \(maximumDecodedPixels) decoded whole")
        }
        guard let options = heif_decoding_options_alloc() else { throw InputError(path: path, reason: "out of memory") }
        defer { heif_decoding_options_free(options) }
        options.pointee.ignore_transformations = 1
        options.pointee.convert_hdr_to_8bit = 1
        var image: OpaquePointer?
        error = heif_decode_image(handle, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGB, options)
        guard error.code == heif_error_Ok, let image else { throw failure("could not decode the image", error) }
        defer { heif_image_release(image) }
        var stride: Int32 = 0
        let decodedWidth = Int(heif_image_get_width(image, heif_channel_interleaved))
        let decodedHeight = Int(heif_image_get_height(image, heif_channel_interleaved))
        guard decodedWidth > 0, decodedHeight > 0,
            let plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride),
            Int(stride) >= decodedWidth * 3
        else { throw InputError(path: path, reason: "libheif returned no pixels") }
        var pixels = [UInt8](repeating: 0, count: decodedWidth * decodedHeight * 3)
        pixels.withUnsafeMutableBufferPointer { target in
            for row in 0..<decodedHeight {
                (target.baseAddress! + row * decodedWidth * 3).update(
                    from: plane + row * Int(stride), count: decodedWidth * 3)
            }
        }
        return Decoded(
            picture: Picture(width: decodedWidth, height: decodedHeight, pixels: pixels), fromThumbnail: fromThumbnail)
    }

    /// The smallest thumbnail item whose stored size covers `minimumWidth`×`minimumHeight`.
    static func smallestThumbnail(of primary: OpaquePointer, minimumWidth: Int, minimumHeight: Int) -> OpaquePointer? {
        let count = Int(heif_image_handle_get_number_of_thumbnails(primary))
        guard count > 0 else { return nil }
        var ids = [heif_item_id](repeating: 0, count: count)
        let listed = Int(heif_image_handle_get_list_of_thumbnail_IDs(primary, &ids, Int32(count)))
        var best: (handle: OpaquePointer, pixels: Int)?
        for id in ids.prefix(listed) {
            var thumbnail: OpaquePointer?
            guard heif_image_handle_get_thumbnail(primary, id, &thumbnail).code == heif_error_Ok, let thumbnail else {
                continue
            }
            let width = Int(heif_image_handle_get_ispe_width(thumbnail))
            let height = Int(heif_image_handle_get_ispe_height(thumbnail))
            if width >= minimumWidth, height >= minimumHeight, best.map({ width * height < $0.pixels }) ?? true {
                if let previous = best { heif_image_handle_release(previous.handle) }
                best = (thumbnail, width * height)
            } else {
                heif_image_handle_release(thumbnail)
            }
        }
        return best?.handle
    }
}

/// libheif, opened the first time a HEIF picture is decoded (Sources/CLibHeif/LibHeifLoader.c),
/// never when the program starts: reading HEIF structure and orientation needs no libheif.
enum LibHeif {
    /// Opens libheif once per process; throws why it cannot be used, for `path`'s error line:
    /// `libheif is not installed (libheif.so.1: cannot open shared object file: ...)`.
    static func load(for path: String) throws(InputError) {
        if let reason = OpenedLibrary.libheif.failure { throw InputError(path: path, reason: reason) }
    }
}
