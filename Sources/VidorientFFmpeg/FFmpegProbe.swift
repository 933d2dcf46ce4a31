import CFFmpeg
package import VidorientCore
import VidorientIO
import VidorientISOBMFF

/// A file FFmpeg opened and probed, kept open: its facts (`probe`) and, where the probe decoded
/// the first frame at full size, the decoder holding it. `Prober` (Vidorient) makes one where
/// FFmpeg answers a file, and a thumbnail or the content judge decodes from the same one: the
/// file is opened and its first frame decoded once.
package final class ProbedFile {
    let file: MediaFile
    let decoder: VideoDecoder?
    /// What FFmpeg read, before `MediaReport` judges it.
    package let probe: MediaProbe

    /// `format`: what the file is (`Prober.format(of:)`, asked once; it names the container where
    /// the project has a name for it); `timeout`: seconds after which reading gives up (nil:
    /// never); `decode`: decode the first frame even where its NAL units are enough;
    /// `boxEvidence`: merge the box layer's view of an MP4/MOV (false for a file whose report the
    /// box layer has made already).
    package init(path: String, format: MediaFormat, timeout: Double? = nil, decode: Bool, boxEvidence: Bool = true)
        throws(InputError)
    {
        let opened = try MediaFile(path: path, timeout: timeout)
        let probed: (probe: MediaProbe, decoder: VideoDecoder?)
        do {
            probed = try FFmpegProbe.probe(opened, format: format, decode: decode, boxEvidence: boxEvidence)
        } catch {
            throw opened.timedOut ? .timedOut(path: path, after: timeout ?? 0) : error
        }
        file = opened
        probe = probed.probe
        decoder = probed.decoder
    }
}

/// What FFmpeg reads of a file: its streams, the container's matrix, the H.264/HEVC SEI and the
/// first frame's facts, with the box layer's view of MP4/MOV added. `Prober` (Vidorient) sends
/// here what the box layer and the photo readers do not read alone.
package enum FFmpegProbe {
    /// Probes an open file. When `decode` made a full-size decoder read the first frame, that
    /// decoder comes back too, holding it, so that a thumbnail of an early frame costs no second
    /// open and decode. `boxEvidence`: merge the box layer's view of an MP4/MOV (a caller that
    /// has the file's report already, decided by the box layer, needs only FFmpeg's streams).
    static func probe(_ file: MediaFile, format: MediaFormat, decode: Bool, boxEvidence: Bool = true) throws(InputError)
        -> (
            probe: MediaProbe, decoder: VideoDecoder?
        )
    {
        let path = file.path
        if file.needsStreamInfo {
            do { try file.findStreamInfo() } catch {
                throw InputError(path: path, reason: "could not read the streams: \(error)")
            }
        }
        let streams = file.streams
        guard !streams.isEmpty else { throw InputError(path: path, reason: "no streams found") }
        var reports = streams.map(FFmpegProbe.report)
        var evidence: VideoEvidence?
        var decoder: VideoDecoder?
        var truncation: String?
        if let index = MediaProbe.primaryVideoIndex(in: reports) {
            var found: VideoEvidence
            (found, decoder) = FFmpegProbe.videoEvidence(
                file: file, stream: streams[index], report: &reports[index], decode: decode)
            if boxEvidence && file.formatName.hasPrefix("mov,mp4") {
                (found, truncation) = FFmpegProbe.addBoxEvidence(
                    to: found, path: path, trackID: Int(streams[index].pointee.id))
            }
            evidence = found
        }
        var probe = MediaProbe(
            path: path, format: FFmpegProbe.format(file, kind: format), streams: reports, video: evidence)
        probe.truncation = truncation
        return (probe, decoder)
    }

    static func seiCodec(_ id: AVCodecID) -> DisplayOrientationSEI.Codec? {
        switch id {
        case AV_CODEC_ID_H264: .h264
        case AV_CODEC_ID_HEVC: .hevc
        default: nil
        }
    }

    /// H.264 and HEVC without decoding: the display-orientation SEI is read from the first
    /// packets' NAL units, and a parser (which reads parameter sets, not pictures) gives the
    /// pixel format and profile. Decoding a 10-bit HEVC frame costs more than the rest of
    /// `inspect` together.
    static func scanForSEI(
        file: MediaFile, stream: UnsafeMutablePointer<AVStream>, codec: DisplayOrientationSEI.Codec,
        evidence: inout VideoEvidence, report: inout StreamReport
    ) {
        let par = stream.pointee.codecpar.pointee
        let extradata =
            par.extradata.map { Array(UnsafeBufferPointer(start: $0, count: Int(par.extradata_size))) } ?? []
        let framing = DisplayOrientationSEI.framing(extradata: extradata, codec: codec)
        guard let packet = av_packet_alloc() else { return }
        defer {
            var owned: UnsafeMutablePointer<AVPacket>? = packet
            av_packet_free(&owned)
        }
        let parser = ParameterSetParser(stream: stream)
        var seen = 0
        // The SEI travels with the first access unit; a few more cover streams that open on a
        // non-key frame.
        while seen < 8 {
            do {
                guard try file.read(into: packet) else { break }
            } catch {
                evidence.firstFrameError = error.description
                break
            }
            defer { av_packet_unref(packet) }
            guard packet.pointee.stream_index == stream.pointee.index, let data = packet.pointee.data else { continue }
            seen += 1
            let bytes = Array(UnsafeBufferPointer(start: data, count: Int(packet.pointee.size)))
            parser?.parse(bytes)
            if let sei = DisplayOrientationSEI.find(in: bytes, codec: codec, framing: framing) {
                evidence.frameMatrix = sei.matrix
            }
            if packet.pointee.flags & AV_PKT_FLAG_KEY != 0 { break }
        }
        if seen == 0 && evidence.firstFrameError == nil { evidence.firstFrameError = "no packet in the stream" }
        if let parser {
            if report.pixelFormat == nil { setPixelFormat(&report, AVPixelFormat(parser.pixelFormat)) }
            if report.profile == nil, parser.profile >= 0 {
                report.profile = avcodec_profile_name(par.codec_id, parser.profile).map { String(cString: $0) }
            }
        }
    }

    /// What FFmpeg hides in MP4/QuickTime: the track and movie matrices apart, the track's own
    /// metadata, timed-metadata keys. Headers only; a file the box layer cannot read keeps
    /// FFmpeg's view alone, and the reason (`boxLayerError`, a finding). Also where the file ends
    /// before its last box does (`MediaProbe.truncation`).
    static func addBoxEvidence(to evidence: VideoEvidence, path: String, trackID: Int) -> (
        VideoEvidence, truncation: String?
    ) {
        var merged = evidence
        let structure: MovieStructure
        let source: ReadAheadBytes
        do throws(ISOBMFFError) {
            source = ReadAheadBytes(try FileBytes(path: path))
            structure = try MovieStructure(source)
        } catch {
            merged.boxLayerError = error.reason
            return (merged, nil)
        }
        guard let boxes = structure.videoEvidence(trackID: trackID, streamIndex: evidence.streamIndex, source: source)
        else { return (evidence, structure.truncation) }
        merged.trackID = boxes.trackID
        merged.trackMatrix = boxes.trackMatrix
        merged.movieMatrix = boxes.movieMatrix
        merged.trackTags = boxes.trackTags
        merged.timedMetadataKeys = boxes.timedMetadataKeys
        merged.timedOrientation = boxes.timedOrientation
        return (merged, structure.truncation)
    }

    static func format(_ file: MediaFile, kind: MediaFormat) -> FormatReport {
        let context = file.context.pointee
        let tags = MediaFile.tags(context.metadata)
        let iso6709 = tags["com.apple.quicktime.location.ISO6709"] ?? tags["location"]
        let size = context.pb.map { avio_size($0) } ?? -1
        let duration =
            context.duration == Int64.min || context.duration <= 0
            ? nil : Double(context.duration) / Double(AV_TIME_BASE)
        // FFmpeg's stream-info pass derives these; without it, derive them the same way.
        var bitRate = context.bit_rate > 0 ? Int(context.bit_rate) : nil
        if bitRate == nil, let duration { bitRate = FormatReport.averageBitRate(bytes: size, seconds: duration) }
        var startTime = context.start_time == Int64.min ? nil : Double(context.start_time) / Double(AV_TIME_BASE)
        if startTime == nil {
            startTime = file.streams.compactMap { stream -> Double? in
                let st = stream.pointee
                guard st.start_time != Int64.min, st.time_base.den > 0 else { return nil }
                return Double(st.start_time) * Double(st.time_base.num) / Double(st.time_base.den)
            }.min()
        }
        let (name, longName) = FFmpegProbe.containerName(file, tags: tags, kind: kind)
        return FormatReport(
            name: name,
            longName: longName,
            duration: duration,
            size: size >= 0 ? Int(size) : nil,
            bitRate: bitRate,
            startTime: startTime,
            creationTime: tags["creation_time"],
            streamCount: Int(context.nb_streams),
            location: iso6709.flatMap(Location.init(iso6709:)),
            tags: tags,
            ffmpegDemuxer: file.formatName)
    }

    /// The project's vocabulary for the container (MediaFormat's), FFmpeg's demuxer name only
    /// where the project has none.
    static func containerName(_ file: MediaFile, tags: [String: String], kind: MediaFormat) -> (String, String?) {
        if file.formatName.hasPrefix("mov,mp4") {
            let kind = MediaFormat.movieContainer(majorBrand: tags["major_brand"])
            return (kind.name, kind.longName)
        }
        // Only a friendlier name for the format, where the project has one; FFmpeg's stands otherwise.
        if case .other(let name?) = kind { return (name, nil) }
        return (
            file.formatName.split(separator: ",").first.map(String.init) ?? file.formatName,
            file.context.pointee.iformat.flatMap { $0.pointee.long_name.map { String(cString: $0) } }
        )
    }

    static func report(_ stream: UnsafeMutablePointer<AVStream>) -> StreamReport {
        let st = stream.pointee
        let par = st.codecpar.pointee
        var report = StreamReport(
            index: Int(st.index),
            type: av_get_media_type_string(par.codec_type).map { String(cString: $0) } ?? "unknown")
        if let descriptor = avcodec_descriptor_get(par.codec_id) {
            report.codec = String(cString: descriptor.pointee.name)
            report.codecLongName = descriptor.pointee.long_name.map { String(cString: $0) }
        }
        report.codecTag = fourCC(par.codec_tag)
        report.profile = avcodec_profile_name(par.codec_id, par.profile).map { String(cString: $0) }
        if report.profile == nil, par.codec_id == AV_CODEC_ID_AAC, par.extradata_size >= 1,
            let extradata = par.extradata
        {
            // The AudioSpecificConfig opens with the object type; FFmpeg's AAC profile is one less.
            let objectType = Int32(extradata[0] >> 3)
            if objectType > 0 && objectType < 31 {
                report.profile = avcodec_profile_name(par.codec_id, objectType - 1).map { String(cString: $0) }
            }
        }
        if par.codec_type == AVMEDIA_TYPE_VIDEO {
            setPixelFormat(&report, AVPixelFormat(par.format))
            report.codedWidth = par.width > 0 ? Int(par.width) : nil
            report.codedHeight = par.height > 0 ? Int(par.height) : nil
            report.sampleAspectRatio = ratio(
                par.sample_aspect_ratio.num > 0 ? par.sample_aspect_ratio : st.sample_aspect_ratio)
            let rate = st.avg_frame_rate.num > 0 && st.avg_frame_rate.den > 0 ? st.avg_frame_rate : st.r_frame_rate
            report.frameRate = rate.num > 0 && rate.den > 0 ? Double(rate.num) / Double(rate.den) : nil
            report.colorPrimaries = colourName(par.color_primaries, AVCOL_PRI_UNSPECIFIED, av_color_primaries_name)
            report.colorTransfer = colourName(par.color_trc, AVCOL_TRC_UNSPECIFIED, av_color_transfer_name)
            report.colorSpace = colourName(par.color_space, AVCOL_SPC_UNSPECIFIED, av_color_space_name)
            report.colorRange = colourName(par.color_range, AVCOL_RANGE_UNSPECIFIED, av_color_range_name)
            report.hdr = hdr(transfer: par.color_trc)
            if let dovi = vo_stream_dovi(stream) {
                report.dolbyVision = "\(dovi.pointee.dv_profile).\(dovi.pointee.dv_bl_signal_compatibility_id)"
            }
        }
        if par.codec_type == AVMEDIA_TYPE_AUDIO {
            report.sampleRate = par.sample_rate > 0 ? Int(par.sample_rate) : nil
            let channels = vo_channel_count(st.codecpar)
            report.channels = channels > 0 ? Int(channels) : nil
        }
        if st.duration != Int64.min, st.duration > 0, st.time_base.den > 0 {
            report.duration = Double(st.duration) * Double(st.time_base.num) / Double(st.time_base.den)
        }
        report.bitRate = par.bit_rate > 0 ? Int(par.bit_rate) : nil
        report.frameCount = st.nb_frames > 0 ? Int(st.nb_frames) : nil
        report.tags = MediaFile.tags(st.metadata)
        report.language = report.tags["language"]
        report.handlerName = report.tags["handler_name"]
        report.title = report.tags["title"]
        report.isDefault = st.disposition & AV_DISPOSITION_DEFAULT != 0
        report.isAttachedPicture = st.disposition & AV_DISPOSITION_ATTACHED_PIC != 0
        return report
    }

    /// `num:den` in lowest terms, as ffprobe prints it; nil when unknown (0).
    static func ratio(_ value: AVRational) -> String? {
        var num: Int32 = 0, den: Int32 = 0
        guard value.num > 0, value.den > 0 else { return nil }
        av_reduce(&num, &den, Int64(value.num), Int64(value.den), Int64(Int32.max))
        return "\(num):\(den)"
    }

    static func setPixelFormat(_ report: inout StreamReport, _ format: AVPixelFormat) {
        guard format != AV_PIX_FMT_NONE, let descriptor = av_pix_fmt_desc_get(format) else { return }
        report.pixelFormat = String(cString: descriptor.pointee.name)
        report.bitDepth = Int(descriptor.pointee.comp.0.depth)
    }

    /// FFmpeg's name of a colour property (primaries, transfer, space, range); nil when unspecified.
    static func colourName<Value: Equatable>(
        _ value: Value, _ unspecified: Value, _ name: (Value) -> UnsafePointer<CChar>?
    ) -> String? {
        value == unspecified ? nil : name(value).map { String(cString: $0) }
    }

    static func hdr(transfer: AVColorTransferCharacteristic) -> String? {
        switch transfer {
        case AVCOL_TRC_ARIB_STD_B67: return "hlg"
        case AVCOL_TRC_SMPTE2084: return "pq"
        default: return nil
        }
    }

    static func fourCC(_ tag: UInt32) -> String? {
        guard tag != 0 else { return nil }
        let bytes = (0..<4).map { UInt8(truncatingIfNeeded: tag >> ($0 * 8)) }
        guard bytes.allSatisfy({ (0x20..<0x7F).contains($0) }) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The container's matrix, then the first frame: its SEI or EXIF orientation, and the
    /// stream facts only a decoder knows (pixel format, profile, aspect ratio) when the header
    /// did not say.
    static func videoEvidence(
        file: MediaFile, stream: UnsafeMutablePointer<AVStream>, report: inout StreamReport, decode: Bool
    ) -> (VideoEvidence, VideoDecoder?) {
        let codecID = stream.pointee.codecpar.pointee.codec_id
        let isStill = [AV_CODEC_ID_MJPEG, AV_CODEC_ID_PNG, AV_CODEC_ID_WEBP, AV_CODEC_ID_TIFF, AV_CODEC_ID_BMP]
            .contains(codecID)
        var evidence = VideoEvidence(streamIndex: report.index, isStillImage: isStill)
        if let matrix = vo_stream_display_matrix(stream) {
            evidence.containerMatrix = DisplayMatrix(fixedPoint: Array(UnsafeBufferPointer(start: matrix, count: 9)))
        }
        // Only this stream's packets are read from here on.
        for other in file.streams where other != stream { other.pointee.discard = AVDISCARD_ALL }
        if !decode, let sei = seiCodec(codecID) {
            scanForSEI(file: file, stream: stream, codec: sei, evidence: &evidence, report: &report)
            return (evidence, nil)
        }
        do {
            let decoder = try VideoDecoder(stream: stream, lowres: isStill ? Int.max : 0)
            guard try decoder.decodeFirstFrame(from: file) else {
                evidence.firstFrameError = "no frame in the stream"
                return (evidence, nil)
            }
            let frame = decoder.frame
            if let matrix = vo_frame_display_matrix(frame) {
                evidence.frameMatrix = DisplayMatrix(fixedPoint: Array(UnsafeBufferPointer(start: matrix, count: 9)))
            }
            evidence.exifOrientationTag = MediaFile.tags(frame.pointee.metadata)["Orientation"]
            if report.pixelFormat == nil { setPixelFormat(&report, AVPixelFormat(frame.pointee.format)) }
            // Without the stream-info pass an image's size comes from its decoder: the coded size,
            // which is the full one even when decoding at reduced resolution.
            if report.codedWidth == nil, decoder.context.pointee.coded_width > 0 {
                report.codedWidth = Int(decoder.context.pointee.coded_width)
                report.codedHeight = Int(decoder.context.pointee.coded_height)
            }
            if report.profile == nil {
                report.profile = avcodec_profile_name(codecID, decoder.context.pointee.profile).map {
                    String(cString: $0)
                }
            }
            if report.sampleAspectRatio == nil { report.sampleAspectRatio = ratio(frame.pointee.sample_aspect_ratio) }
            // A reduced-resolution decoder is no use for pictures.
            return (evidence, isStill ? nil : decoder)
        } catch {
            evidence.firstFrameError = error.description
        }
        return (evidence, nil)
    }
}
