import CFFmpeg
import Dispatch
import Synchronization
package import VidorientCore
import VidorientIO
import VidorientISOBMFF

/// A HEIF picture coded in 4:2:0 HEVC or in AV1 (4:2:0, 4:2:2 or 4:4:4), 8, 10 or 12 bits (one
/// image, or a grid of tiles as phones write them), decoded by FFmpeg (its HEVC decoder; dav1d through its
/// `libdav1d` wrapper): the tiles on every core, one decoder per worker, pasted into one YUV
/// picture, which swscale crops, scales and turns into RGB in one pass at the size asked.
///
/// libheif 1.15 decodes the same tiles with libde265 (about 1.6 times the CPU of FFmpeg's
/// decoder here) and converts every pixel to RGB at full size before anything is scaled; this
/// path does neither (docs/performance.md, photo-thumbnail). libheif opens dav1d with dav1d's own
/// logger, which prints on stderr beside vidorient's one line about a damaged AVIF; through FFmpeg,
/// dav1d's words go to FFmpeg's log, which vidorient routes. Anything else (monochrome, an item
/// this path does not know, HEVC that is not 4:2:0) is left to libheif: `decode` returns nil.
package enum HEIFTiles {
    /// The picture at `width`×`height`, from the primary item's `crop` (stored pixels) or all of
    /// it; nil when it is not a picture this path decodes, or HEVC not shrunk to half or less
    /// (nearer full size, libheif's chroma upsampling and FFmpeg's differ), or when an HEVC thumbnail item covers
    /// `thumbnailWidth`×`thumbnailHeight` (libheif decodes that, far cheaper), or when the file or
    /// an item is larger than `maximumBytes` (the caller's limit on what is read into memory), or a
    /// tile than `maximumTilePixels` (what the caller lets a decoder make whole: libheif refuses it), or
    /// when an HEVC tile does not decode (libheif then tries, and says why). AV1 that does not
    /// decode is refused here, with dav1d's reason: libheif would hand it to dav1d again.
    package static func decode(
        path: String, crop: PixelRect?, width: Int, height: Int, thumbnailWidth: Int, thumbnailHeight: Int,
        maximumBytes: Int, maximumTilePixels: Int
    ) throws(InputError) -> Picture? {
        guard
            let image = try Image(
                path: path, thumbnailWidth: thumbnailWidth, thumbnailHeight: thumbnailHeight, maximumBytes: maximumBytes
            )
        else { return nil }
        // `ispe` holds 32-bit sides: their product can pass Int's range.
        let (tilePixels, overflow) = image.tileWidth.multipliedReportingOverflow(by: image.tileHeight)
        guard !overflow, tilePixels <= maximumTilePixels else { return nil }
        let region = crop ?? PixelRect(x: 0, y: 0, width: image.width, height: image.height)
        guard takes(image.codec, from: region.width, region.height, at: width, height) else { return nil }
        try FFmpegLibraries.load(for: path)
        switch image.decodeTiles(maximumTilePixels: maximumTilePixels) {
        case .success(let planes): return try planes.scaled(crop: crop, width: width, height: height, path: path)
        case .failure(let failure):
            guard image.codec == .av1, let reason = failure.reason else { return nil }
            throw InputError(path: path, reason: "could not decode the image: the AV1 data does not decode (\(reason))")
        }
    }

    /// Whether this path decodes a picture of `codec` from `storedWidth`×`storedHeight` pixels at
    /// `width`×`height`: AV1 at any size; HEVC shrunk to half or less (nearer full size, libheif's
    /// chroma upsampling and FFmpeg's differ). The one rule, which `decode` and the caller's memory
    /// estimate both ask.
    package static func takes(_ codec: Codec, from storedWidth: Int, _ storedHeight: Int, at width: Int, _ height: Int)
        -> Bool
    {
        codec == .av1 || (storedWidth >= 2 * width && storedHeight >= 2 * height)
    }

    /// The codecs this path decodes: the item type, and its configuration property.
    package enum Codec: Sendable {
        case hevc, av1

        init?(itemType: FourCC) {
            switch itemType {
            case "hvc1": self = .hevc
            case "av01": self = .av1
            default: return nil
            }
        }

        /// The codec a primary item of `type` is expected in before its tiles are read: a grid's
        /// taken as HEVC, as phones write them (`decode` reads the tiles' own). Nil: not this path's.
        package init?(primaryItemType type: String?) {
            switch type {
            case "hvc1", "grid": self = .hevc
            case "av01": self = .av1
            default: return nil
            }
        }

        var itemType: FourCC { self == .hevc ? "hvc1" : "av01" }
        var configurationType: FourCC { self == .hevc ? "hvcC" : "av1C" }

        /// The samples of a configuration this path decodes; nil for any other. `hvcC` (ISO/IEC
        /// 14496-15 8.3.3.1): chroma_format_idc 1 (4:2:0), luma and chroma of one depth, 8, 10 or
        /// 12. `av1C` (AV1 codec ISOBMFF binding 2.3.3): marker and version 1, not monochrome,
        /// high_bitdepth and twelve_bit, chroma_subsampling_x and _y.
        func samples(_ configuration: [UInt8]) -> SampleFormat? {
            switch self {
            case .hevc:
                guard configuration.count >= 23, configuration[0] == 1, configuration[16] & 3 == 1,
                    configuration[17] & 7 == configuration[18] & 7, configuration[17] & 7 <= 4
                else { return nil }
                return SampleFormat(x: 1, y: 1, depth: 8 + Int(configuration[17] & 7))
            case .av1:
                guard configuration.count >= 4, configuration[0] == 0x81, configuration[2] & 0x10 == 0 else {
                    return nil
                }
                let high = configuration[2] & 0x40 != 0, twelve = configuration[2] & 0x20 != 0
                let (x, y) = (Int(configuration[2] >> 3 & 1), Int(configuration[2] >> 2 & 1))
                // 4:4:0 (y without x) is no AV1 profile's.
                guard !(x == 0 && y == 1) else { return nil }
                return SampleFormat(x: x, y: y, depth: high ? (twelve ? 12 : 10) : 8)
            }
        }
    }

    /// Planar YUV: chroma subsampling as shifts (4:2:0 is (1, 1), 4:2:2 (1, 0), 4:4:4 (0, 0)),
    /// and the bit depth (8, 10 or 12; more than 8 in two bytes a sample, as FFmpeg gives them).
    struct SampleFormat: Equatable {
        var x: Int, y: Int
        var depth: Int

        var bytesPerSample: Int { depth > 8 ? 2 : 1 }

        /// The formats a decoder gives for it (limited range first; 8-bit full range has its own).
        var pixelFormats: [AVPixelFormat] {
            switch (x, y, depth) {
            case (1, 1, 8): [AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUVJ420P]
            case (1, 0, 8): [AV_PIX_FMT_YUV422P, AV_PIX_FMT_YUVJ422P]
            case (_, _, 8): [AV_PIX_FMT_YUV444P, AV_PIX_FMT_YUVJ444P]
            case (1, 1, 10): [AV_PIX_FMT_YUV420P10LE]
            case (1, 0, 10): [AV_PIX_FMT_YUV422P10LE]
            case (_, _, 10): [AV_PIX_FMT_YUV444P10LE]
            case (1, 1, _): [AV_PIX_FMT_YUV420P12LE]
            case (1, 0, _): [AV_PIX_FMT_YUV422P12LE]
            default: [AV_PIX_FMT_YUV444P12LE]
            }
        }
    }

    /// Tiles this path will not decode past: far more than any camera's grid.
    static let maximumTiles = 4096

    /// The primary item as tiles: their coded bytes, their decoder configuration, their place.
    struct Image {
        struct Tile {
            var data: [UInt8]
            /// Index into `configurations`.
            var configuration: Int
            var column: Int, row: Int
        }

        let codec: Codec
        /// Every tile's (a grid's tiles that differ are left to libheif).
        var samples = SampleFormat(x: 1, y: 1, depth: 8)
        let width: Int, height: Int
        let tileWidth: Int, tileHeight: Int
        var tiles: [Tile] = []
        /// Distinct `hvcC` or `av1C` payloads (a grid's tiles usually share one).
        var configurations: [[UInt8]] = []
        /// From the primary item's `colr` of type `nclx`: matrix coefficients and full range.
        var matrix: Int?, fullRange: Bool?

        init?(path: String, thumbnailWidth: Int, thumbnailHeight: Int, maximumBytes: Int) throws(InputError) {
            let source: MemoryBytes
            do {
                let file = try FileBytes(path: path)
                guard file.size <= Int64(maximumBytes) else { return nil }
                source = MemoryBytes(try file.read(at: 0, count: Int(file.size)))
            } catch {
                throw InputError(path: path, reason: error.reason)
            }
            // Absent is fine: what the box layer cannot read, libheif reports in its own words.
            guard let (structure, layout) = try? (HEIFStructure(source), HEIFLayout(source)) else { return nil }
            guard let primary = structure.primaryItem else { return nil }
            let firstTile = primary.type == "grid" ? structure.grid?.tiles.first : primary.id
            guard let tileType = firstTile.flatMap({ structure.item($0)?.type }), let codec = Codec(itemType: tileType)
            else { return nil }
            self.codec = codec
            // An AV1 thumbnail item would go to dav1d through libheif: the primary is decoded here.
            for id in structure.referring(to: primary.id, type: "thmb") where codec == .hevc {
                if let size = structure.item(id)?.spatialExtent, size.width >= thumbnailWidth,
                    size.height >= thumbnailHeight
                {
                    return nil
                }
            }
            let ids: [UInt32]
            let columns: Int
            switch primary.type {
            case codec.itemType:
                guard let extent = primary.spatialExtent else { return nil }
                (width, height) = (extent.width, extent.height)
                ids = [primary.id]
                columns = 1
            case "grid":
                guard let grid = structure.grid, grid.tiles.count <= HEIFTiles.maximumTiles else { return nil }
                (width, height) = (grid.outputWidth, grid.outputHeight)
                ids = grid.tiles
                columns = grid.columns
            default:
                return nil
            }
            guard let first = structure.item(ids[0])?.spatialExtent, first.width > 0, first.height > 0 else {
                return nil
            }
            (tileWidth, tileHeight) = (first.width, first.height)
            for (index, id) in ids.enumerated() {
                guard let item = structure.item(id), item.type == codec.itemType, let extent = item.spatialExtent,
                    extent.width == tileWidth, extent.height == tileHeight,
                    let configuration = Image.payload(
                        of: codec.configurationType, item: id, layout: layout, source: source),
                    let format = codec.samples(configuration), index == 0 || format == samples,
                    // A tile turned or cropped on its own is a picture this path does not assemble
                    // (the primary item's own are applied afterwards, as for every photo).
                    id == primary.id
                        || !item.properties.contains(where: { ["irot", "imir", "clap"].contains($0.property.type) }),
                    // Absent is fine: a tile past the limit or unreadable is libheif's to decode or report.
                    let data = try? structure.data(of: id, in: source, limit: maximumBytes)
                else { return nil }
                samples = format
                let known = configurations.firstIndex(of: configuration)
                if known == nil { configurations.append(configuration) }
                tiles.append(
                    Tile(
                        data: data, configuration: known ?? configurations.count - 1, column: index % columns,
                        row: index / columns))
            }
            if let colour = Image.payload(of: "colr", item: primary.id, layout: layout, source: source),
                colour.count >= 11, Array(colour[0..<4]) == Array("nclx".utf8)
            {
                matrix = Int(colour[8]) << 8 | Int(colour[9])
                fullRange = colour[10] & 0x80 != 0
            }
        }

        /// The payload of the item's first associated property of `type`.
        static func payload(of type: FourCC, item: UInt32, layout: HEIFLayout, source: MemoryBytes) -> [UInt8]? {
            for box in layout.associationBoxes {
                for entry in box.entries where entry.itemID == item {
                    for association in entry.associations {
                        let index = association.propertyIndex
                        guard index >= 1, index <= layout.properties.count else { continue }
                        let place = layout.properties[index - 1]
                        guard place.type == type, place.size >= place.headerSize else { continue }
                        // The layout holds every box inside the file; a place past it is no payload.
                        guard place.offset >= 0, place.offset + place.size <= source.size else { return nil }
                        return Array(source.bytes[Int(place.payloadOffset)..<Int(place.offset + place.size)])
                    }
                }
            }
            return nil
        }

        /// Every tile decoded and pasted, one decoder per worker; a failure when a tile does not
        /// decode to what its configuration promised, with the decoder's reason when it gave one
        /// (none when the decoder could not be opened). Each decoder refuses a frame over
        /// `maximumTilePixels` before allocating it.
        func decodeTiles(maximumTilePixels: Int) -> Result<Planes, TileFailure> {
            let planes = Planes(width: width, height: height, samples: samples)
            let next = Atomic<Int>(0)
            let failure = Mutex<TileFailure?>(nil)
            let colour = Mutex<(range: AVColorRange, space: AVColorSpace)?>(nil)
            let workers = min(tiles.count, Processors.available)
            // One image alone: its decoder's own threads (dav1d's tile and filter threads).
            let threads = workers == 1 ? Processors.available : 1
            DispatchQueue.concurrentPerform(iterations: workers) { _ in
                var decoder: TileDecoder?
                while failure.withLock({ $0 == nil }) {
                    let index = next.add(1, ordering: .relaxed).oldValue
                    guard index < tiles.count else { return }
                    let tile = tiles[index]
                    if decoder?.configuration != tile.configuration {
                        decoder = TileDecoder(
                            codec: codec, configuration: tile.configuration,
                            extradata: configurations[tile.configuration], threads: threads,
                            maximumPixels: maximumTilePixels)
                    }
                    let decoded = decoder.map { $0.decode(tile.data) } ?? .failure(TileFailure(reason: nil))
                    guard case .success(let frame) = decoded, frame.pointee.width >= Int32(tileWidth),
                        frame.pointee.height >= Int32(tileHeight),
                        samples.pixelFormats.contains(AVPixelFormat(frame.pointee.format))
                    else {
                        let reason: TileFailure
                        if case .failure(let why) = decoded {
                            reason = why
                        } else {
                            reason = TileFailure(
                                reason: "a tile is not the \(tileWidth)x\(tileHeight) picture its item says")
                        }
                        failure.withLock { $0 = $0 ?? reason }
                        return
                    }
                    planes.paste(frame, x: tile.column * tileWidth, y: tile.row * tileHeight)
                    if index == 0 {
                        let seen = (frame.pointee.color_range, frame.pointee.colorspace)
                        colour.withLock { $0 = seen }
                    }
                }
            }
            if let reason = failure.withLock({ $0 }) { return .failure(reason) }
            // The item's nclx decides, as in libheif; else the stream's own signalling.
            let stream = colour.withLock { $0 }
            planes.fullRange = fullRange ?? (stream?.range == AVCOL_RANGE_JPEG)
            planes.matrix = matrix ?? stream.map { Int($0.space.rawValue) } ?? Int(AVCOL_SPC_UNSPECIFIED.rawValue)
            return .success(planes)
        }
    }

    /// Why a tile gave no picture: the decoder's words, nil when there is no decoder to give them.
    struct TileFailure: Error {
        var reason: String?

        init(reason: String?) {
            self.reason = reason
        }

        /// A decoder's error code, in words: dav1d's "out of range" is a frame over `max_pixels`.
        init(_ code: Int32, maximumPixels: Int) {
            reason =
                code == -ERANGE
                ? "its coded picture is larger than the \(maximumPixels) pixels decoded whole"
                : FFmpegError(code: code).description
        }
    }

    /// One worker's decoder, opened with a tile configuration's `hvcC` or `av1C` as extradata
    /// (FFmpeg's libdav1d wrapper reads the sequence header from an `av1C`, its marker bit set).
    final class TileDecoder {
        let configuration: Int
        let maximumPixels: Int
        private var context: UnsafeMutablePointer<AVCodecContext>?
        private var frame: UnsafeMutablePointer<AVFrame>?
        private var packet: UnsafeMutablePointer<AVPacket>?

        /// `maximumPixels`: a frame larger is refused by the decoder before it is allocated
        /// (`max_pixels`; dav1d's `frame_size_limit`), whatever size the item claims: the limit
        /// on a whole decode holds for the coded picture too.
        init?(codec kind: Codec, configuration: Int, extradata: [UInt8], threads: Int, maximumPixels: Int) {
            self.configuration = configuration
            self.maximumPixels = maximumPixels
            // FFmpeg 5.1's own AV1 decoder decodes only through hardware: dav1d, by name.
            let found =
                kind == .hevc ? avcodec_find_decoder(AV_CODEC_ID_HEVC) : avcodec_find_decoder_by_name("libdav1d")
            guard let codec = found, let context = avcodec_alloc_context3(codec) else { return nil }
            self.context = context
            frame = av_frame_alloc()
            packet = av_packet_alloc()
            let padding = Int(AV_INPUT_BUFFER_PADDING_SIZE)
            guard frame != nil, packet != nil,
                let copy = av_mallocz(extradata.count + padding)?.assumingMemoryBound(to: UInt8.self)
            else { return nil }
            copy.update(from: extradata, count: extradata.count)
            context.pointee.extradata = copy
            context.pointee.extradata_size = Int32(extradata.count)
            // One thread each where the tiles are what runs in parallel.
            context.pointee.thread_count = Int32(threads)
            context.pointee.max_pixels = Int64(maximumPixels)
            // One picture: no frames in flight (dav1d would hold a picture for each).
            context.pointee.flags |= Int32(AV_CODEC_FLAG_LOW_DELAY)
            guard avcodec_open2(context, codec, nil) == 0 else { return nil }
        }

        deinit {
            av_frame_free(&frame)
            av_packet_free(&packet)
            avcodec_free_context(&context)
        }

        /// The tile's picture (valid until the next call), or why it gave none.
        func decode(_ data: [UInt8]) -> Result<UnsafeMutablePointer<AVFrame>, TileFailure> {
            guard let context, let frame, let packet else { return .failure(TileFailure(reason: nil)) }
            avcodec_flush_buffers(context)
            var padded = data
            padded.append(contentsOf: repeatElement(0, count: Int(AV_INPUT_BUFFER_PADDING_SIZE)))
            let sent = padded.withUnsafeMutableBufferPointer { buffer -> Int32 in
                packet.pointee.data = buffer.baseAddress
                packet.pointee.size = Int32(data.count)
                packet.pointee.flags = AV_PKT_FLAG_KEY
                defer {
                    packet.pointee.data = nil
                    packet.pointee.size = 0
                }
                return avcodec_send_packet(context, packet)
            }
            guard sent == 0 else { return .failure(TileFailure(sent, maximumPixels: maximumPixels)) }
            // A still picture comes out at once; otherwise the end of the stream pushes it out.
            if avcodec_receive_frame(context, frame) == 0 { return .success(frame) }
            let flushed = avcodec_send_packet(context, nil)
            let received = flushed == 0 ? avcodec_receive_frame(context, frame) : flushed
            guard received == 0 else {
                return .failure(TileFailure(received, maximumPixels: maximumPixels))
            }
            return .success(frame)
        }
    }

    /// The whole picture in planar YUV: what the tiles were pasted into.
    final class Planes: @unchecked Sendable {
        // Unchecked: each tile writes its own rectangle, and nothing reads until every tile is in.
        let width: Int, height: Int
        let samples: SampleFormat
        let chromaWidth: Int, chromaHeight: Int
        let luma: UnsafeMutablePointer<UInt8>
        let cb: UnsafeMutablePointer<UInt8>
        let cr: UnsafeMutablePointer<UInt8>
        var fullRange = false
        var matrix = Int(AVCOL_SPC_UNSPECIFIED.rawValue)

        init(width: Int, height: Int, samples: SampleFormat) {
            (self.width, self.height, self.samples) = (width, height, samples)
            (chromaWidth, chromaHeight) = ((width + samples.x) >> samples.x, (height + samples.y) >> samples.y)
            let bytes = samples.bytesPerSample
            luma = .allocate(capacity: width * height * bytes)
            cb = .allocate(capacity: chromaWidth * chromaHeight * bytes)
            cr = .allocate(capacity: chromaWidth * chromaHeight * bytes)
        }

        deinit {
            luma.deallocate()
            cb.deallocate()
            cr.deallocate()
        }

        /// A tile's pixels at (`x`, `y`), cut where the grid's output ends.
        func paste(_ frame: UnsafeMutablePointer<AVFrame>, x: Int, y: Int) {
            let f = frame.pointee
            guard x < width, y < height, let sourceY = f.data.0, let sourceU = f.data.1, let sourceV = f.data.2 else {
                return
            }
            // In bytes: a sample of more than 8 bits is two.
            let bytes = samples.bytesPerSample
            let columns = min(Int(f.width), width - x), rows = min(Int(f.height), height - y)
            for row in 0..<rows {
                (luma + ((y + row) * width + x) * bytes).update(
                    from: sourceY + row * Int(f.linesize.0), count: columns * bytes)
            }
            let (sx, sy) = (samples.x, samples.y)
            let (cx, cy) = (x >> sx, y >> sy)
            let chromaColumns = min((columns + sx) >> sx, chromaWidth - cx)
            let chromaRows = min((rows + sy) >> sy, chromaHeight - cy)
            for row in 0..<chromaRows {
                let offset = ((cy + row) * chromaWidth + cx) * bytes
                (cb + offset).update(from: sourceU + row * Int(f.linesize.1), count: chromaColumns * bytes)
                (cr + offset).update(from: sourceV + row * Int(f.linesize.2), count: chromaColumns * bytes)
            }
        }

        /// `crop` (or everything) at `width`×`height` in RGB: area averaging for reductions,
        /// the YUV to RGB conversion done by swscale on the small picture with the picture's own
        /// matrix and range, as for video frames (`Scaler`).
        func scaled(crop: PixelRect?, width outputWidth: Int, height outputHeight: Int, path: String)
            throws(InputError) -> Picture
        {
            let region = crop ?? PixelRect(x: 0, y: 0, width: width, height: height)
            guard region.x >= 0, region.y >= 0, region.width > 0, region.height > 0, region.x + region.width <= width,
                region.y + region.height <= height
            else { throw InputError(path: path, reason: "the clean aperture is outside the picture") }
            let reduction = Double(region.width) / Double(max(1, outputWidth))
            let flags = (reduction > 2 ? SWS_AREA : SWS_BICUBIC) | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT | SWS_BITEXACT
            guard
                let context = sws_getContext(
                    Int32(region.width), Int32(region.height), samples.pixelFormats[0], Int32(outputWidth),
                    Int32(outputHeight), AV_PIX_FMT_RGB24, flags, nil, nil, nil)
            else {
                throw InputError(path: path, reason: "could not scale the picture to \(outputWidth)x\(outputHeight)")
            }
            defer { sws_freeContext(context) }
            let colorspace: Int32 =
                switch AVColorSpace(UInt32(clamping: matrix)) {
                case AVCOL_SPC_BT709: SWS_CS_ITU709
                case AVCOL_SPC_BT2020_NCL, AVCOL_SPC_BT2020_CL: SWS_CS_BT2020
                case AVCOL_SPC_SMPTE240M: SWS_CS_SMPTE240M
                default: SWS_CS_DEFAULT
                }
            _ = sws_setColorspaceDetails(
                context, sws_getCoefficients(colorspace), fullRange ? 1 : 0, sws_getCoefficients(SWS_CS_DEFAULT), 1, 0,
                1 << 16, 1 << 16)
            var pixels = [UInt8](repeating: 0, count: outputWidth * outputHeight * 3)
            pixels.withUnsafeMutableBufferPointer { target in
                let bytes = samples.bytesPerSample
                let chroma = ((region.y >> samples.y) * chromaWidth + (region.x >> samples.x)) * bytes
                var sourcePlanes: [UnsafePointer<UInt8>?] = [
                    UnsafePointer(luma + (region.y * width + region.x) * bytes), UnsafePointer(cb + chroma),
                    UnsafePointer(cr + chroma), nil,
                ]
                var sourceStrides: [Int32] = [
                    Int32(width * bytes), Int32(chromaWidth * bytes), Int32(chromaWidth * bytes), 0,
                ]
                var targetPlanes: [UnsafeMutablePointer<UInt8>?] = [target.baseAddress, nil, nil, nil]
                var targetStrides: [Int32] = [Int32(outputWidth * 3), 0, 0, 0]
                _ = sws_scale(
                    context, &sourcePlanes, &sourceStrides, 0, Int32(region.height), &targetPlanes, &targetStrides)
            }
            return Picture(width: outputWidth, height: outputHeight, pixels: pixels)
        }
    }
}
