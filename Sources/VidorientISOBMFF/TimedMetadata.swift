package import VidorientIO

/// One sample of a `mebx` timed-metadata track: the values its keys take from `time` on.
package struct TimedMetadataSample: Sendable, Hashable {
    /// Media time in seconds, in the track's own timescale (edit lists are not applied).
    package var time: Double
    package var duration: Double
    /// The sample's values, named by the keys of the track's sample description.
    package var items: [MetadataItem]
}

extension Track {
    /// The values of a `mebx` track over time, such as `com.apple.quicktime.video-orientation`.
    /// Unlike the rest of this module, this reads media data: the samples themselves, which for
    /// such tracks are a few bytes each. At most `maximumSamples` are read; samples larger than
    /// `MetadataValue.maximumSize` are listed without items. Empty for other tracks.
    package func timedMetadataSamples(in source: some ByteSource, maximumSamples: Int = 1024)
        throws(ISOBMFFError) -> [TimedMetadataSample]
    {
        guard !timedMetadataKeys.isEmpty, let tables = sampleTable, let timescale = mediaTimescale, timescale > 0,
            maximumSamples > 0
        else { return [] }
        let reader = FirstSampleTables(walker: BoxWalker(source), maximumSamples: maximumSamples)
        let sizes = try reader.sizes(tables.sampleSizes)
        let times = try reader.times(tables.timeToSample, sampleCount: sizes.count)
        let chunkOffsets = try reader.chunkOffsets(tables.chunkOffsets)
        let runs = try reader.chunkRuns(tables.sampleToChunk)
        let sampleOffsets = reader.sampleOffsets(sizes: sizes, chunkOffsets: chunkOffsets, runs: runs)

        let keys = Dictionary(timedMetadataKeys.map { ($0.localID, $0) }, uniquingKeysWith: { first, _ in first })
        var samples: [TimedMetadataSample] = []
        for index in 0..<min(sampleOffsets.count, times.count) {
            var sample = TimedMetadataSample(
                time: Double(times[index].start) / Double(timescale),
                duration: Double(times[index].duration) / Double(timescale), items: [])
            let size = Int(sizes[index])
            if size <= MetadataValue.maximumSize {
                sample.items = try Self.timedMetadataItems(
                    ofSample: index, at: sampleOffsets[index], size: size, in: source, keys: keys)
            }
            samples.append(sample)
        }
        return samples
    }

    /// The values of one sample, read from the file: a run of boxes, each typed by a local key ID
    /// and holding one value.
    private static func timedMetadataItems(
        ofSample index: Int, at offset: UInt64, size: Int, in source: some ByteSource, keys: [UInt32: TimedMetadataKey]
    ) throws(ISOBMFFError) -> [MetadataItem] {
        guard offset <= UInt64(source.size), Int64(size) <= source.size - Int64(offset) else {
            throw .malformed("timed metadata sample \(index + 1) at offset \(offset) lies outside the file")
        }
        let bytes = MemoryBytes(try source.read(at: Int64(offset), count: size))
        var inner = BoxWalker(bytes)
        var items: [MetadataItem] = []
        for box in try inner.boxes(from: 0, to: bytes.size, depth: 0, in: nil) {
            guard let key = keys[box.type.rawValue] else { continue }
            let type = key.wellKnownType ?? 0
            items.append(
                MetadataItem(
                    key: key.name, namespace: key.namespace, dataType: type, locale: 0,
                    value: MetadataValue(
                        wellKnownType: type,
                        bytes: bytes.bytes[Int(box.payloadOffset)..<Int(box.end)])))
        }
        return items
    }
}

/// A track's sample tables, each read only as far as the first `maximumSamples` samples need.
/// The counts in the tables are not to be trusted: every loop stops at `maximumSamples`.
private struct FirstSampleTables<Source: ByteSource> {
    let walker: BoxWalker<Source>
    let maximumSamples: Int
    let limit: Int

    init(walker: BoxWalker<Source>, maximumSamples: Int) {
        self.walker = walker
        self.maximumSamples = maximumSamples
        limit = 16 + 12 * maximumSamples
    }

    /// `stsz`: the size of each sample.
    func sizes(_ stszBox: BoxHeader) throws(ISOBMFFError) -> [UInt32] {
        var stsz = try walker.payload(of: stszBox, limit: limit)
        try stsz.skip(4)
        let uniformSize = try stsz.uint32()
        let sampleCount = min(Int(try stsz.uint32()), maximumSamples)
        var sizes: [UInt32] = []
        for _ in 0..<sampleCount { sizes.append(uniformSize != 0 ? uniformSize : try stsz.uint32()) }
        return sizes
    }

    /// `stts`: when each of the first `sampleCount` samples starts and how long it lasts, in the
    /// track's timescale.
    func times(_ sttsBox: BoxHeader, sampleCount: Int) throws(ISOBMFFError) -> [(start: UInt64, duration: UInt32)] {
        var stts = try walker.payload(of: sttsBox, limit: limit)
        try stts.skip(4)
        var times: [(start: UInt64, duration: UInt32)] = []
        var clock: UInt64 = 0
        for _ in 0..<min(Int(try stts.uint32()), maximumSamples) {
            guard times.count < sampleCount else { break }
            let (count, delta) = (try stts.uint32(), try stts.uint32())
            for _ in 0..<min(Int(count), sampleCount - times.count) {
                times.append((clock, delta))
                clock &+= UInt64(delta)
            }
        }
        return times
    }

    /// `stco` or `co64`: where each chunk starts in the file.
    func chunkOffsets(_ box: BoxHeader) throws(ISOBMFFError) -> [UInt64] {
        var offsets = try walker.payload(of: box, limit: limit)
        try offsets.skip(4)
        let wide = box.type == "co64"
        var chunkOffsets: [UInt64] = []
        for _ in 0..<min(Int(try offsets.uint32()), maximumSamples) {
            chunkOffsets.append(wide ? try offsets.uint64() : UInt64(try offsets.uint32()))
        }
        return chunkOffsets
    }

    /// `stsc`: the runs of chunks that hold the same number of samples, by first chunk (1-based).
    func chunkRuns(_ stscBox: BoxHeader) throws(ISOBMFFError) -> [(firstChunk: UInt32, samplesPerChunk: UInt32)] {
        var stsc = try walker.payload(of: stscBox, limit: limit)
        try stsc.skip(4)
        var runs: [(firstChunk: UInt32, samplesPerChunk: UInt32)] = []
        for _ in 0..<min(Int(try stsc.uint32()), maximumSamples) {
            let run = (try stsc.uint32(), try stsc.uint32())
            try stsc.skip(4)  // sample description index
            guard run.0 >= 1, run.0 > (runs.last?.firstChunk ?? 0) else {
                throw .malformed("'stsc' box at \(stscBox.offset) has chunk numbers out of order")
            }
            runs.append(run)
        }
        return runs
    }

    /// Where each sample starts: sample n lives in its chunk after the samples before it in the
    /// same chunk. Every loop stops at the number of sizes.
    func sampleOffsets(sizes: [UInt32], chunkOffsets: [UInt64], runs: [(firstChunk: UInt32, samplesPerChunk: UInt32)])
        -> [UInt64]
    {
        let sampleCount = sizes.count
        var sampleOffsets: [UInt64] = []
        runs: for (index, run) in runs.enumerated() {
            let nextChunk = index + 1 < runs.count ? Int(runs[index + 1].firstChunk) : chunkOffsets.count + 1
            var chunk = Int(run.firstChunk)
            while chunk < nextChunk, chunk <= chunkOffsets.count {
                var position = chunkOffsets[chunk - 1]
                for _ in 0..<min(Int(run.samplesPerChunk), sampleCount) {
                    guard sampleOffsets.count < sampleCount else { break runs }
                    sampleOffsets.append(position)
                    position &+= UInt64(sizes[sampleOffsets.count - 1])
                }
                chunk += 1
            }
        }
        return sampleOffsets
    }
}
