/// One sample of a `mebx` timed-metadata track: the values its keys take from `time` on.
public struct TimedMetadataSample: Sendable, Hashable {
    /// Media time in seconds, in the track's own timescale (edit lists are not applied).
    public var time: Double
    public var duration: Double
    /// The sample's values, named by the keys of the track's sample description.
    public var items: [MetadataItem]
}

extension Track {
    /// The values of a `mebx` track over time, such as `com.apple.quicktime.video-orientation`.
    /// Unlike the rest of this module, this reads media data: the samples themselves, which for
    /// such tracks are a few bytes each. At most `maximumSamples` are read; samples larger than
    /// `MetadataValue.maximumSize` are listed without items. Empty for other tracks.
    public func timedMetadataSamples(in source: some ByteSource, maximumSamples: Int = 1024)
        throws(ISOBMFFError) -> [TimedMetadataSample]
    {
        guard !timedMetadataKeys.isEmpty, let tables = sampleTable, let timescale = mediaTimescale, timescale > 0,
            maximumSamples > 0
        else { return [] }
        let walker = BoxWalker(source)
        // Each table is read only as far as the first `maximumSamples` samples need.
        let limit = 16 + 12 * maximumSamples

        var stsz = try walker.payload(of: tables.sampleSizes, limit: limit)
        try stsz.skip(4)
        let uniformSize = try stsz.uint32()
        let sampleCount = min(Int(try stsz.uint32()), maximumSamples)
        var sizes: [UInt32] = []
        for _ in 0..<sampleCount { sizes.append(uniformSize != 0 ? uniformSize : try stsz.uint32()) }

        var stts = try walker.payload(of: tables.timeToSample, limit: limit)
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

        var offsets = try walker.payload(of: tables.chunkOffsets, limit: limit)
        try offsets.skip(4)
        let wide = tables.chunkOffsets.type == "co64"
        var chunkOffsets: [UInt64] = []
        for _ in 0..<min(Int(try offsets.uint32()), maximumSamples) {
            chunkOffsets.append(wide ? try offsets.uint64() : UInt64(try offsets.uint32()))
        }

        var stsc = try walker.payload(of: tables.sampleToChunk, limit: limit)
        try stsc.skip(4)
        var runs: [(firstChunk: UInt32, samplesPerChunk: UInt32)] = []
        for _ in 0..<min(Int(try stsc.uint32()), maximumSamples) {
            let run = (try stsc.uint32(), try stsc.uint32())
            try stsc.skip(4)  // sample description index
            guard run.0 >= 1, run.0 > (runs.last?.firstChunk ?? 0) else {
                throw .malformed("'stsc' box at \(tables.sampleToChunk.offset) has chunk numbers out of order")
            }
            runs.append(run)
        }

        // Sample n lives in its chunk after the samples before it in the same chunk.
        // Every loop stops at `sampleCount`: the counts in the tables are not to be trusted.
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

        let keys = Dictionary(timedMetadataKeys.map { ($0.localID, $0) }, uniquingKeysWith: { first, _ in first })
        var samples: [TimedMetadataSample] = []
        for index in 0..<min(sampleOffsets.count, times.count) {
            var sample = TimedMetadataSample(
                time: Double(times[index].start) / Double(timescale),
                duration: Double(times[index].duration) / Double(timescale), items: [])
            let size = Int(sizes[index])
            if size <= MetadataValue.maximumSize {
                guard sampleOffsets[index] <= UInt64(source.size), Int64(size) <= source.size - Int64(sampleOffsets[index])
                else {
                    throw .malformed(
                        "timed metadata sample \(index + 1) at offset \(sampleOffsets[index]) lies outside the file")
                }
                let bytes = MemoryBytes(try source.read(at: Int64(sampleOffsets[index]), count: size))
                // A sample is a run of boxes, each typed by a local key ID and holding one value.
                var inner = BoxWalker(bytes)
                for box in try inner.boxes(from: 0, to: bytes.size, depth: 0, in: nil) {
                    guard let key = keys[box.type.rawValue] else { continue }
                    let type = key.wellKnownType ?? 0
                    sample.items.append(
                        MetadataItem(
                            key: key.name, namespace: key.namespace, dataType: type, locale: 0,
                            value: MetadataValue(
                                wellKnownType: type,
                                bytes: bytes.bytes[Int(box.payloadOffset)..<Int(box.end)])))
                }
            }
            samples.append(sample)
        }
        return samples
    }
}
