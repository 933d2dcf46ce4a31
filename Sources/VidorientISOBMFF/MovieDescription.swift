package import VidorientCore
package import VidorientIO

/// Everything `vidorient inspect` reports about an MP4, MOV, 3GP or M4A file, read from its boxes
/// alone: no FFmpeg is loaded or called. Each fact is read as FFmpeg's mov demuxer reads it
/// (libavformat/mov.c in FFmpeg 5.1), so that a report does not change with the path that made
/// it; the differential test (VidorientTests/BoxDescriptionDifferentialTests) compares the
/// two on every file it can find or make.
///
/// What it does not follow it refuses with `ISOBMFFError.unsupported` (fragmented files, codecs
/// outside its table, cover art, timecode tracks…): the caller then asks FFmpeg, and says so.
package enum MovieDescription {
    /// The facts `MediaReport(probe:)` decides on, for the file at `path`.
    package static func probe(path: String) throws(ISOBMFFError) -> MediaProbe {
        let source = ReadAheadBytes(try FileBytes(path: path))
        let structure = try MovieStructure(source)
        return try probe(structure, path: path, source: source)
    }

    /// What the boxes alone say of a movie: the whole description, or why the box layer will not
    /// give it beside what the headers say (enough for the orientation).
    package enum Reading {
        case described(MediaProbe)
        case headers(MediaProbe, refusal: ISOBMFFError)
    }

    /// The movie at `path` read from its boxes: the description tried first, the headers after it
    /// when it is refused. Throws when the boxes cannot be read at all. The one reading that
    /// `Prober` (inspect, the audit, the fix) takes a movie's answer from.
    package static func read(path: String) throws(ISOBMFFError) -> Reading {
        let source = ReadAheadBytes(try FileBytes(path: path))
        return read(try MovieStructure(source), path: path, source: source)
    }

    /// `read(path:)` of a structure already parsed from `source`.
    package static func read(_ structure: MovieStructure, path: String, source: some ByteSource) -> Reading {
        do throws(ISOBMFFError) {
            return .described(try probe(structure, path: path, source: source))
        } catch {
            return .headers(structure.mediaProbe(path: path, source: source), refusal: error)
        }
    }

    package static func probe(_ structure: MovieStructure, path: String, source: some ByteSource)
        throws(ISOBMFFError) -> MediaProbe
    {
        guard !structure.isFragmented else { throw .unsupported("a fragmented file") }
        var walker = BoxWalker(source)
        let brands = try Brands(structure, walker: walker)
        var streams: [StreamReport] = []
        var described: [DescribedTrack] = []
        for (index, track) in structure.tracks.enumerated() {
            let one = try DescribedTrack(
                track, index: index, movie: structure, isQuickTime: brands.isQuickTime, walker: &walker)
            streams.append(one.report)
            described.append(one)
        }
        var format = try formatReport(structure, brands: brands, walker: &walker)
        format.startTime = described.map(\.startTime).min() ?? 0
        var evidence: VideoEvidence?
        if let index = MediaProbe.primaryVideoIndex(in: streams) {
            var found = structure.videoEvidence(
                track: structure.tracks[index], streamIndex: index, source: source)
            try described[index].scanFirstSamples(into: &found, report: &streams[index], source: source)
            evidence = found
        }
        var probe = MediaProbe(path: path, format: format, streams: streams, video: evidence)
        probe.truncation = structure.truncation
        return probe
    }

    /// What `ftyp` says, as mov.c keeps it.
    struct Brands {
        var major: String?
        var minorVersion: UInt32?
        /// The raw compatible-brand bytes, as one string (mov.c's `compatible_brands`).
        var compatible: String?
        /// mov.c's `!isom`: no `ftyp`, or a major brand of `qt  `; or `qt  ` among the compatible ones.
        var isQuickTime: Bool

        init<Source: ByteSource>(_ structure: MovieStructure, walker: BoxWalker<Source>) throws(ISOBMFFError) {
            guard let ftyp = structure.movieBoxes.ftyp, ftyp.payloadSize >= 8 else {
                isQuickTime = true
                return
            }
            var c = try walker.payload(of: ftyp, limit: 1 << 12)
            let majorBytes = Array(try c.take(4))
            major = String(decoding: majorBytes, as: UTF8.self)
            minorVersion = try c.uint32()
            let rest = Array(c.rest())
            compatible = String(decoding: rest.prefix { $0 != 0 }, as: UTF8.self)
            let brandList = stride(from: 0, to: rest.count - 3, by: 4).map { rest[$0..<$0 + 4] }
            isQuickTime = major == "qt  " || brandList.contains { Array($0) == Array("qt  ".utf8) }
        }
    }

    static func formatReport<Source: ByteSource>(
        _ structure: MovieStructure, brands: Brands, walker: inout BoxWalker<Source>
    ) throws(ISOBMFFError) -> FormatReport {
        var tags: [String: String] = [:]
        if let major = brands.major {
            tags["major_brand"] = major
            tags["minor_version"] = brands.minorVersion.map(String.init)
            tags["compatible_brands"] = brands.compatible
        }
        if let mvhd = structure.movieBoxes.mvhd {
            var c = try walker.payload(of: mvhd, limit: 32)
            let version = try c.uint8()
            try c.skip(3)
            let created = version == 1 ? try c.uint64() : UInt64(try c.uint32())
            tags["creation_time"] = QuickTimeTags.creationTime(created, version: version)
        }
        // moov/meta and moov/udta, in the order the file has them.
        let movieLevel = (structure.movieBoxes.meta + structure.movieBoxes.userData).sorted { $0.offset < $1.offset }
        for box in movieLevel {
            if box.type == "meta" {
                try QuickTimeTags.readMeta(box, into: &tags, walker: &walker)
            } else {
                try QuickTimeTags.read(userData: box, into: &tags, walker: &walker)
            }
        }
        // Track-level user data lands among the container's tags in FFmpeg 5.1.
        for track in structure.tracks {
            for box in track.boxes.userData { try QuickTimeTags.read(userData: box, into: &tags, walker: &walker) }
        }
        let header = structure.movieHeader
        var duration: Double?
        if header.timescale > 0, header.duration > 0, header.duration < UInt64(Int64.max) / 1_000_000 {
            // mov.c rescales to microseconds (av_rescale rounds to nearest).
            let micros = (Int64(header.duration) * 1_000_000 + Int64(header.timescale) / 2) / Int64(header.timescale)
            duration = Double(micros) / 1_000_000
        }
        let iso6709 = tags["com.apple.quicktime.location.ISO6709"] ?? tags["location"]
        let kind = MediaFormat.movieContainer(majorBrand: brands.major)
        return FormatReport(
            name: kind.name, longName: kind.longName, duration: duration, size: Int(structure.fileSize),
            bitRate: duration.flatMap { FormatReport.averageBitRate(bytes: structure.fileSize, seconds: $0) },
            startTime: 0, creationTime: tags["creation_time"], streamCount: structure.tracks.count,
            location: iso6709.flatMap(Location.init(iso6709:)), tags: tags, ffmpegDemuxer: nil)
    }
}
