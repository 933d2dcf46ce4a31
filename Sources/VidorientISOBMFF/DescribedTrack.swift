import VidorientCore
import VidorientIO

/// One track described as a stream, and what its first samples need for the orientation SEI.
struct DescribedTrack {
    var report: StreamReport
    var entry: SampleEntry?
    var track: Track
    var codec: String?
    /// Seconds before the first sample is shown (FFmpeg's stream `start_time`).
    var startTime = 0.0

    /// Video sample entries described here, with FFmpeg's codec names.
    static let videoCodecs: [FourCC: String] = [
        "avc1": "h264", "avc3": "h264", "hvc1": "hevc", "hev1": "hevc", "dvh1": "hevc", "dvhe": "hevc",
        "av01": "av1", "vp09": "vp9", "mp4v": "mpeg4",
    ]
    /// Audio sample entries described here (`mp4a` is decided by its object type).
    static let audioCodecs: [FourCC: String] = [
        "ac-3": "ac3", "ec-3": "eac3", "Opus": "opus", "fLaC": "flac", "alac": "alac", "sowt": "pcm_s16le",
        "twos": "pcm_s16be",
    ]
    /// FFmpeg's long names (its codec descriptors) for the codecs above.
    static let longNames: [String: String] = [
        "h264": "H.264 / AVC / MPEG-4 AVC / MPEG-4 part 10", "hevc": "H.265 / HEVC (High Efficiency Video Coding)",
        "av1": "Alliance for Open Media AV1", "vp9": "Google VP9", "mpeg4": "MPEG-4 part 2",
        "aac": "AAC (Advanced Audio Coding)", "mp3": "MP3 (MPEG audio layer 3)", "ac3": "ATSC A/52A (AC-3)",
        "eac3": "ATSC A/52B (AC-3, E-AC-3)", "opus": "Opus (Opus Interactive Audio Codec)",
        "flac": "FLAC (Free Lossless Audio Codec)", "alac": "ALAC (Apple Lossless Audio Codec)",
        "pcm_s16le": "PCM signed 16-bit little-endian", "pcm_s16be": "PCM signed 16-bit big-endian",
        "pcm_s8": "PCM signed 8-bit",
    ]

    init<Source: ByteSource>(
        _ track: Track, index: Int, movie: MovieStructure, isQuickTime: Bool, walker: inout BoxWalker<Source>
    ) throws(ISOBMFFError) {
        self.track = track
        let handler = track.handler
        let type =
            switch handler {
            case "vide": "video"
            case "soun": "audio"
            default: "data"
            }
        var report = StreamReport(index: index, type: type)
        report.isDefault = track.isEnabled
        var tags: [String: String] = [:]

        // mdhd: creation time and language; hdlr: the handler's name.
        if let mdhd = track.boxes.mdhd {
            var c = try walker.payload(of: mdhd, limit: 40)
            let version = try c.uint8()
            try c.skip(3)
            let created = version == 1 ? try c.uint64() : UInt64(try c.uint32())
            try c.skip(version == 1 ? 8 + 4 + 8 : 4 + 4 + 4)
            tags["creation_time"] = QuickTimeTags.creationTime(created, version: version)
            tags["language"] = try QuickTimeTags.language(try c.uint16())
        }
        if let hdlr = track.boxes.hdlr, hdlr.payloadSize > 24 {
            var c = try walker.payload(of: hdlr, limit: 4096)
            try c.skip(4)
            let componentType = try c.uint32()
            try c.skip(16)
            var name = Array(c.rest())
            if let end = name.firstIndex(of: 0) { name = Array(name[..<end]) }
            // A QuickTime handler name is a Pascal string (mov.c: when the file is not ISO and
            // the first byte is the length of the rest).
            let isISO = !isQuickTime || componentType == 0
            if !isISO, let first = name.first, Int(first) == Int(hdlr.payloadSize) - 24 - 1 { name.removeFirst() }
            if !name.isEmpty { tags["handler_name"] = String(decoding: name, as: UTF8.self) }
        }

        guard let entryBox = track.boxes.sampleEntry else {
            throw .unsupported("track \(track.trackID) has no sample description")
        }
        let entry = try SampleEntry(entryBox, handler: handler, isQuickTime: isQuickTime, walker: &walker)
        self.entry = entry
        report.codecTag = DescribedTrack.printableTag(entry.format)

        switch type {
        case "video":
            guard let codec = DescribedTrack.videoCodecs[entry.format] else {
                throw .unsupported("'\(entry.format)' video")
            }
            self.codec = codec
            tags["vendor_id"] = QuickTimeTags.fourCCText(entry.vendor)
            if !entry.compressorName.isEmpty { tags["encoder"] = entry.compressorName }
            try DescribedTrack.describeVideo(&report, codec: codec, entry: entry, track: track, movie: movie)
        case "audio":
            tags["vendor_id"] = QuickTimeTags.fourCCText(entry.vendor)
            codec = try DescribedTrack.describeAudio(&report, entry: entry)
        default:
            guard entry.format == "mebx" else {
                throw .unsupported("'\(entry.format)' \(handler?.description ?? "") track")
            }
            codec = nil
        }
        report.codec = codec
        report.codecLongName = codec.flatMap { DescribedTrack.longNames[$0] }
        startTime = try DescribedTrack.describeTiming(&report, track: track, movie: movie, walker: &walker)
        report.tags = tags
        report.language = tags["language"]
        report.handlerName = tags["handler_name"]
        report.title = tags["title"]
        self.report = report
    }

    /// The tag as ffprobe prints it: four printable ASCII characters, else nothing.
    static func printableTag(_ tag: FourCC) -> String? {
        let bytes = tag.bytes
        guard bytes.allSatisfy({ (0x20..<0x7F).contains($0) }), tag.rawValue != 0 else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func describeVideo(
        _ report: inout StreamReport, codec: String, entry: SampleEntry, track: Track, movie: MovieStructure
    ) throws(ISOBMFFError) {
        report.codedWidth = entry.width > 0 ? entry.width : nil
        report.codedHeight = entry.height > 0 ? entry.height : nil
        var facts: CodecFacts?
        switch codec {
        case "h264": facts = entry.child("avcC").flatMap(CodecConfiguration.avc)
        case "hevc": facts = entry.child("hvcC").flatMap(CodecConfiguration.hevc)
        case "av1": facts = entry.child("av1C").flatMap(CodecConfiguration.av1)
        case "vp9": facts = entry.child("vpcC").flatMap(CodecConfiguration.vp9)
        case "mpeg4":
            guard let esds = entry.child("esds").flatMap(CodecConfiguration.elementaryStream), esds.objectType == 0x20
            else { throw .unsupported("an 'mp4v' entry that is not MPEG-4 part 2") }
            facts = CodecFacts(
                profile: CodecConfiguration.mpeg4VisualProfile(esds.decoderSpecificInfo), pixelFormat: "yuv420p",
                bitDepth: 8)
        default: break
        }
        guard let facts, let pixelFormat = facts.pixelFormat else {
            throw .unsupported("\(codec) without a configuration read here")
        }
        report.profile = facts.profile
        report.pixelFormat = pixelFormat
        report.bitDepth = facts.bitDepth

        // Colour: the last `colr` of each kind, as mov.c overwrites.
        for colour in entry.colours where colour.count >= 10 {
            let kind = String(decoding: colour[0..<4], as: UTF8.self)
            guard kind == "nclx" || kind == "nclc" else { continue }
            func number(_ at: Int) -> Int { Int(colour[at]) << 8 | Int(colour[at + 1]) }
            report.colorPrimaries = ColourNames.primaries[number(4)]
            report.colorTransfer = ColourNames.transfer[number(6)]
            report.colorSpace = ColourNames.matrix[number(8)]
            if kind == "nclx" {
                report.colorRange = colour.count > 10 && colour[10] & 0x80 != 0 ? "pc" : "tv"
            }
        }
        if codec == "vp9", entry.colours.isEmpty, let vpcC = entry.child("vpcC"), vpcC.count >= 12 {
            // mov.c's vpcC reader sets the colour description too.
            report.colorPrimaries = ColourNames.primaries[Int(vpcC[7])]
            report.colorTransfer = ColourNames.transfer[Int(vpcC[8])]
            report.colorSpace = ColourNames.matrix[Int(vpcC[9])]
            report.colorRange = vpcC[6] & 0x01 != 0 ? "pc" : "tv"
        }
        if pixelFormat.hasPrefix("yuv444p") {
            // 4:4:4 may be RGB (gbrp): H.264's parser asks the container's matrix, the other
            // decoders their own bitstream, which is not read here.
            guard codec == "h264" else { throw .unsupported("\(codec) 4:4:4, which may be RGB") }
            if report.colorSpace == "gbr" { report.pixelFormat = pixelFormat.replacingPrefix("yuv444p", with: "gbrp") }
        }
        report.hdr =
            switch report.colorTransfer {
            case "arib-std-b67": "hlg"
            case "smpte2084": "pq"
            default: nil
            }
        if let dovi = entry.child("dvcC") ?? entry.child("dvvC") ?? entry.child("dvwC"), dovi.count >= 5 {
            let profile = Int(dovi[2] >> 1)
            let compatibility = Int(dovi[4] >> 4)
            report.dolbyVision = "\(profile).\(compatibility)"
        }
        report.sampleAspectRatio = sampleAspectRatio(entry: entry, track: track, movie: movie)
        if report.sampleAspectRatio == nil {
            // What FFmpeg's decoders say of a frame when the container does not: libdav1d the
            // render size over the frame size (equal unless the stream says otherwise), the
            // MPEG-4 part 2 decoder the VOL's aspect_ratio_info.
            switch codec {
            case "av1": report.sampleAspectRatio = "1:1"
            case "mpeg4":
                let info = entry.child("esds").flatMap(CodecConfiguration.elementaryStream)?.decoderSpecificInfo ?? []
                report.sampleAspectRatio = CodecConfiguration.mpeg4VisualAspectRatio(info)
            default: break
            }
        }
    }

    /// mov.c's three sources, in its order: a matrix that scales x and y differently (tkhd), then
    /// `pasp`, then the tkhd size against the coded size.
    static func sampleAspectRatio(entry: SampleEntry, track: Track, movie: MovieStructure) -> String? {
        let product = movie.movieHeader.matrix.matrix.after(track.matrix.matrix)
        if !product.isIdentity {
            let fixed = product.fixedPoint.map(Double.init)
            let x = (fixed[0] * fixed[0] + fixed[3] * fixed[3]).squareRoot()
            let y = (fixed[1] * fixed[1] + fixed[4] * fixed[4]).squareRoot()
            if x > 1, y > 1, x < 16_777_216, y < 16_777_216, abs(x / y - 1) > 0.01 {
                return Rational.approximate(x / y)
            }
        }
        if let pasp = entry.child("pasp"), pasp.count >= 8 {
            let num = pasp[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            let den = pasp[4..<8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            if den != 0, num != 0 {
                let reduced = Rational.reduce(Int64(num), Int64(den), maximum: 32767)
                return "\(reduced.0):\(reduced.1)"
            }
        }
        let width = Int(track.width), height = Int(track.height)
        if entry.width > 0, entry.height > 0, width > 0, height > 0, entry.width != width || entry.height != height {
            return Rational.approximate(Double(entry.height * width) / Double(entry.width * height))
        }
        return nil
    }

    static func describeAudio(_ report: inout StreamReport, entry: SampleEntry) throws(ISOBMFFError) -> String {
        report.sampleRate = entry.sampleRate
        report.channels = entry.channels
        var codec: String
        switch entry.format {
        case "mp4a":
            guard let esds = entry.child("esds").flatMap(CodecConfiguration.elementaryStream) else {
                throw .unsupported("an 'mp4a' entry without an elementary stream descriptor")
            }
            switch esds.objectType {
            case 0x40, 0x66, 0x67, 0x68:
                codec = "aac"
                guard let facts = CodecConfiguration.audioSpecificConfig(esds.decoderSpecificInfo) else {
                    throw .unsupported("an AAC configuration not read here")
                }
                report.profile = facts.profile
                if let rate = facts.sampleRate, rate > 0 { report.sampleRate = rate }
                report.channels = facts.channels
            case 0x69, 0x6B: codec = "mp3"
            default: throw .unsupported("'mp4a' object type \(esds.objectType)")
            }
        case "twos" where entry.sampleSize == 8:
            codec = "pcm_s8"
        default:
            guard let known = audioCodecs[entry.format] else { throw .unsupported("'\(entry.format)' audio") }
            codec = known
        }
        switch entry.format {
        case "ac-3": report.channels = entry.child("dac3").flatMap(CodecConfiguration.ac3)?.channels ?? report.channels
        case "ec-3": report.channels = entry.child("dec3").flatMap(CodecConfiguration.eac3)?.channels ?? report.channels
        case "alac":
            // mov.c reads the ALACSpecificConfig: channels and sample rate.
            if let alac = entry.child("alac", fullBox: true), alac.count >= 24 {
                report.channels = Int(alac[9])
                report.sampleRate = Int(alac[20..<24].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            }
        default: break
        }
        if report.channels == 0 { report.channels = nil }
        if report.sampleRate == 0 { report.sampleRate = nil }
        return codec
    }

    /// Duration, frame count, frame rate and bit rate, as mov.c derives them from `mdhd`, `stts`,
    /// `stsz` and the edit list.
    /// Returns when the stream starts, in seconds (an empty edit delays it).
    static func describeTiming<Source: ByteSource>(
        _ report: inout StreamReport, track: Track, movie: MovieStructure, walker: inout BoxWalker<Source>
    ) throws(ISOBMFFError) -> Double {
        var startTime = 0.0
        guard let timescale = track.mediaTimescale, timescale > 0 else { return startTime }
        var duration = Int64(clamping: track.mediaDuration ?? 0)
        let stts = try timeToSample(of: track, walker: walker)
        if stts.duration > 0 { duration = min(duration, stts.duration) }
        // mov.c computes the bit rate before the edit list shortens the stream.
        let mediaDuration = duration
        if let elst = track.boxes.editList {
            startTime = try applyEditList(elst, timescale: timescale, movie: movie, walker: walker, duration: &duration)
        }
        if duration > 0 { report.duration = Double(duration) / Double(timescale) }
        report.frameCount = stts.sampleCount > 0 ? Int(stts.sampleCount) : nil
        if report.type == "video", stts.sampleCount > 0, stts.duration > 0 {
            // Hostile tables can claim more ticks than 64 bits hold: then there is no rate to give.
            let (ticks, overflow) = Int64(timescale).multipliedReportingOverflow(by: stts.sampleCount)
            if !overflow {
                let rate = Rational.reduce(ticks, stts.duration, maximum: Int64(Int32.max))
                report.frameRate = Double(rate.0) / Double(rate.1)
            }
        }
        if mediaDuration > 0, let stsz = track.sampleTable?.sampleSizes {
            // mov.c's index counts the bytes of each sample, except for raw audio stored a
            // sample per tick, which it indexes by chunk and leaves uncounted.
            let rawAudio = report.type == "audio" && stts.entries.count == 1 && stts.entries[0].delta == 1
            let total = try sampleBytes(stsz, walker: walker, countingUniform: !rawAudio)
            let rate = Int128(total) * 8 * Int128(timescale) / Int128(mediaDuration)  // wide: sizes are claims
            report.bitRate = rate > 0 && rate <= Int128(Int.max) ? Int(rate) : nil
        }
        return startTime
    }

    /// A track's time-to-sample table (`stts`) as mov.c reads it.
    struct TimeToSample {
        var entries: [(count: UInt32, delta: UInt32)] = []
        var sampleCount: Int64 = 0
        /// The samples' durations added up, in the media timescale.
        var duration: Int64 = 0
    }

    /// The track's `stts`, empty when it has none. mov.c takes a last single sample far longer
    /// than the average as average.
    static func timeToSample<Source: ByteSource>(of track: Track, walker: BoxWalker<Source>)
        throws(ISOBMFFError) -> TimeToSample
    {
        var table = TimeToSample()
        guard let stts = track.sampleTable?.timeToSample else { return table }
        var c = try walker.payload(of: stts, limit: 8 + 8 * (1 << 20))
        try c.skip(4)
        let count = Int(try c.uint32())
        guard count <= (1 << 20) else { throw .unsupported("a time-to-sample table of \(count) entries") }
        for index in 0..<count {
            let samples = try c.uint32()
            var delta = try c.uint32()
            if index + 1 == count, index > 0, samples == 1, table.sampleCount > 100,
                Int64(delta / 10) > table.duration / table.sampleCount
            {
                delta = UInt32(table.duration / table.sampleCount)
            }
            table.entries.append((samples, delta))
            let (span, spanOverflow) = Int64(samples).multipliedReportingOverflow(by: Int64(delta))
            let (duration, sumOverflow) = table.duration.addingReportingOverflow(span)
            guard !spanOverflow && !sumOverflow else {
                throw .malformed(
                    "the time-to-sample table of track \(track.trackID) lasts more ticks than 64 bits hold")
            }
            table.duration = duration
            table.sampleCount += Int64(samples)
        }
        return table
    }

    /// The edit list as mov.c applies it: an empty first edit delays the stream (the delay is
    /// returned, in seconds), and the stream lasts no longer than its edit (`duration`, in the
    /// media timescale, is shortened to it).
    static func applyEditList<Source: ByteSource>(
        _ elst: BoxHeader, timescale: UInt32, movie: MovieStructure, walker: BoxWalker<Source>, duration: inout Int64
    ) throws(ISOBMFFError) -> Double {
        var startTime = 0.0
        var c = try walker.payload(of: elst, limit: 16 + 20 * 4)
        let version = try c.uint8()
        try c.skip(3)
        let count = try c.uint32()
        guard (1...2).contains(count) else { throw .unsupported("an edit list of \(count) entries") }
        func edit() throws(ISOBMFFError) -> (segment: Int64, mediaTime: Int64) {
            let segment = version == 1 ? Int64(bitPattern: try c.uint64()) : Int64(try c.uint32())
            let mediaTime = version == 1 ? Int64(bitPattern: try c.uint64()) : Int64(Int32(bitPattern: try c.uint32()))
            try c.skip(4)  // rate
            return (segment, mediaTime)
        }
        var (segment, mediaTime) = try edit()
        if count == 2 {
            // An empty edit, then the media: the stream starts that much later.
            guard mediaTime == -1, movie.movieHeader.timescale > 0 else {
                throw .unsupported("an edit list of 2 entries that does not open with an empty edit")
            }
            let empty =
                (segment * Int64(timescale) + Int64(movie.movieHeader.timescale) / 2)
                / Int64(movie.movieHeader.timescale)
            startTime = Double(empty) / Double(timescale)
            (segment, mediaTime) = try edit()
        }
        // The first `mediaTime` ticks (encoder delay, B-frame reordering) are skipped; FFmpeg's
        // stream is then as long as the edit.
        guard mediaTime >= 0 else { throw .unsupported("an edit list of empty edits only") }
        if movie.movieHeader.timescale > 0, segment > 0 {
            let scaled =
                (segment * Int64(timescale) + Int64(movie.movieHeader.timescale) / 2)
                / Int64(movie.movieHeader.timescale)
            duration = min(duration, scaled)
        }
        return startTime
    }

    /// The bytes of the samples the sample size table (`stsz`) counts; a uniform size counts
    /// only when `countingUniform`.
    static func sampleBytes<Source: ByteSource>(_ stsz: BoxHeader, walker: BoxWalker<Source>, countingUniform: Bool)
        throws(ISOBMFFError) -> Int64
    {
        var c = try walker.payload(of: stsz, limit: 12 + 4 * (1 << 22))
        try c.skip(4)
        let uniform = try c.uint32()
        let count = Int(try c.uint32())
        if uniform != 0 {
            guard countingUniform else { return 0 }
            let (bytes, overflow) = Int64(uniform).multipliedReportingOverflow(by: Int64(count))
            guard !overflow else { throw .malformed("the sample size table claims more bytes than 64 bits hold") }
            return bytes
        }
        guard count <= (1 << 22) else { throw .unsupported("a sample size table of \(count) entries") }
        var total: Int64 = 0
        for _ in 0..<count { total += Int64(try c.uint32()) }
        return total
    }

    /// Reads the first samples of an H.264 or HEVC track for its display-orientation SEI, as
    /// `Prober` reads the first packets: up to eight, stopping after the first sync sample.
    mutating func scanFirstSamples(
        into evidence: inout VideoEvidence, report: inout StreamReport, source: some ByteSource
    )
        throws(ISOBMFFError)
    {
        let seiCodec: DisplayOrientationSEI.Codec
        let configuration: [UInt8]
        switch codec {
        case "h264":
            seiCodec = .h264
            configuration = entry?.child("avcC") ?? []
        case "hevc":
            seiCodec = .hevc
            configuration = entry?.child("hvcC") ?? []
        default: return
        }
        let framing = DisplayOrientationSEI.framing(extradata: configuration, codec: seiCodec)
        let samples = try track.firstSamples(8, in: source)
        if samples.isEmpty { evidence.firstFrameError = "no packet in the stream" }
        for sample in samples {
            guard sample.size <= 64 << 20, sample.offset >= 0, Int64(sample.size) <= source.size - sample.offset else {
                throw .malformed("the first video sample lies outside the file")
            }
            let bytes = try source.read(at: sample.offset, count: sample.size)
            if let sei = DisplayOrientationSEI.find(in: bytes, codec: seiCodec, framing: framing) {
                evidence.frameMatrix = sei.matrix
            }
            if sample.isSync { break }
        }
    }
}

extension String {
    func replacingPrefix(_ prefix: String, with replacement: String) -> String {
        hasPrefix(prefix) ? replacement + dropFirst(prefix.count) : self
    }
}
