package import VidorientCore
package import VidorientIO

extension MovieStructure {
    /// The facts `MediaReport` decides on, from box headers alone: no FFmpeg, no decoding. This
    /// is `audit`'s fast path. It sees the container's orientation (tkhd and mvhd apart), track
    /// metadata and sizes; not what only a decoder sees (an H.264/HEVC orientation SEI).
    /// - Parameter source: the file, for the few bytes of timed orientation metadata.
    package func mediaProbe(path: String, source: some ByteSource) -> MediaProbe {
        let streams = tracks.enumerated().map { index, track in track.streamReport(index: index) }
        let tags = MovieStructure.tags(metadata)
        let seconds = movieHeader.timescale > 0 ? Double(movieHeader.duration) / Double(movieHeader.timescale) : nil
        let duration = seconds.flatMap { $0 > 0 ? $0 : nil }
        let iso6709 = tags["com.apple.quicktime.location.ISO6709"] ?? tags["©xyz"]
        let kind = MediaFormat.movieContainer(majorBrand: majorBrand?.description)
        let format = FormatReport(
            name: kind.name, longName: kind.longName, duration: duration, size: Int(fileSize),
            bitRate: duration.flatMap { FormatReport.averageBitRate(bytes: fileSize, seconds: $0) },
            startTime: nil,
            creationTime: nil, streamCount: tracks.count, location: iso6709.flatMap(Location.init(iso6709:)),
            tags: tags)
        let evidence = MediaProbe.primaryVideoIndex(in: streams).map { index in
            videoEvidence(track: tracks[index], streamIndex: index, source: source)
        }
        var probe = MediaProbe(path: path, format: format, streams: streams, video: evidence)
        probe.truncation = truncation
        return probe
    }

    /// Apple's `com.apple.quicktime.video-orientation` values, from whichever timed-metadata
    /// track declares the key. Reads those samples (a few bytes each, at most 1024 of them);
    /// empty when no track has the key or its samples cannot be read.
    package func timedVideoOrientation(in source: some ByteSource) -> [TimedOrientation] {
        let key = "com.apple.quicktime.video-orientation"
        for track in tracks where track.timedMetadataKeys.contains(where: { $0.name == key }) {
            // Absent is fine: timed orientation is informative (the matrix decides), documented above as empty.
            guard let samples = try? track.timedMetadataSamples(in: source) else { continue }
            return samples.compactMap { sample in
                guard let item = sample.items.first(where: { $0.key == key }), case .integer(let value) = item.value
                else { return nil }
                return TimedOrientation(time: sample.time, value: Int(value))
            }
        }
        return []
    }

    /// What the box layer adds to FFmpeg's view of the track with this ID.
    package func videoEvidence(trackID: Int, streamIndex: Int, source: some ByteSource) -> VideoEvidence? {
        tracks.first { Int($0.trackID) == trackID }.map {
            videoEvidence(track: $0, streamIndex: streamIndex, source: source)
        }
    }

    func videoEvidence(track: Track, streamIndex: Int, source: some ByteSource) -> VideoEvidence {
        // As FFmpeg's mov demuxer: the track's matrix, then the movie's; no matrix for identity.
        let product = movieHeader.matrix.matrix.after(track.matrix.matrix)
        let timedKeys = tracks.flatMap { $0.timedMetadataKeys.map(\.name) }
        var seen = Set<String>()
        var evidence = VideoEvidence(
            streamIndex: streamIndex, containerMatrix: product.isIdentity ? nil : product, trackID: Int(track.trackID),
            trackMatrix: track.matrix.matrix, movieMatrix: movieHeader.matrix.matrix,
            trackTags: MovieStructure.tags(track.metadata),
            timedMetadataKeys: timedKeys.filter { seen.insert($0).inserted })
        evidence.timedOrientation = timedVideoOrientation(in: source)
        return evidence
    }

    static func tags(_ items: [MetadataItem]) -> [String: String] {
        var tags: [String: String] = [:]
        for item in items {
            if case .omitted = item.value { continue }
            tags[item.key] = item.value.description
        }
        return tags
    }
}

extension Track {
    /// The stream FFmpeg would list for this track, as far as headers tell.
    func streamReport(index: Int) -> StreamReport {
        let type =
            switch handler?.description {
            case "vide": "video"
            case "soun": "audio"
            case "sbtl", "subt", "text": "subtitle"
            default: "data"
            }
        var report = StreamReport(index: index, type: type)
        report.codecTag = sampleEntry?.description
        report.codec = sampleEntry.flatMap { Track.codecNames[$0.description] }
        report.codedWidth = codedWidth
        report.codedHeight = codedHeight
        if type == "video", let codedWidth, let codedHeight, codedWidth > 0, codedHeight > 0, width > 0, height > 0 {
            // tkhd's size already has the pixel aspect ratio applied: recover it against the coded size.
            report.sampleAspectRatio = Track.ratio(width * Double(codedHeight), height * Double(codedWidth))
        }
        if let mediaTimescale, let mediaDuration, mediaTimescale > 0, mediaDuration > 0 {
            report.duration = Double(mediaDuration) / Double(mediaTimescale)
        }
        report.isDefault = isEnabled
        report.tags = MovieStructure.tags(metadata)
        return report
    }

    /// FFmpeg's codec names for the sample entries phones and cameras write.
    static let codecNames: [String: String] = [
        "avc1": "h264", "avc3": "h264", "hvc1": "hevc", "hev1": "hevc", "dvh1": "hevc", "dvhe": "hevc",
        "av01": "av1", "vp09": "vp9", "mp4v": "mpeg4", "jpeg": "mjpeg", "mjpa": "mjpeg", "apcn": "prores",
        "apch": "prores", "apcs": "prores", "apco": "prores", "ap4h": "prores", "mp4a": "aac", "alac": "alac",
        "Opus": "opus", "fLaC": "flac", "ac-3": "ac3", "ec-3": "eac3", "lpcm": "pcm_s16le", "sowt": "pcm_s16le",
        "twos": "pcm_s16be",
    ]

    /// `num:den` in lowest terms from two positive reals, as ffprobe prints a ratio.
    static func ratio(_ numerator: Double, _ denominator: Double) -> String {
        guard let first = Int(exactly: numerator.rounded()), let second = Int(exactly: denominator.rounded()),
            first > 0, second > 0
        else { return "1:1" }
        var (a, b) = (first, second)
        var (x, y) = (a, b)
        while y != 0 { (x, y) = (y, x % y) }
        a /= x
        b /= x
        return "\(a):\(b)"
    }
}
