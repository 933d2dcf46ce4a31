import VidorientIO

extension Track {
    /// Where the first `count` samples are and whether each is a sync sample.
    func firstSamples(_ count: Int, in source: some ByteSource) throws(ISOBMFFError)
        -> [(offset: Int64, size: Int, isSync: Bool)]
    {
        guard let tables = sampleTable else { return [] }
        let walker = BoxWalker(source)
        let limit = 16 + 12 * count
        var stsz = try walker.payload(of: tables.sampleSizes, limit: limit)
        try stsz.skip(4)
        let uniform = try stsz.uint32()
        let total = min(Int(try stsz.uint32()), count)
        var sizes: [Int] = []
        for _ in 0..<total { sizes.append(Int(uniform != 0 ? uniform : try stsz.uint32())) }
        var offsets = try walker.payload(of: tables.chunkOffsets, limit: limit)
        try offsets.skip(4)
        let wide = tables.chunkOffsets.type == "co64"
        var chunks: [Int64] = []
        for _ in 0..<min(Int(try offsets.uint32()), count) {
            chunks.append(wide ? Int64(bitPattern: try offsets.uint64()) : Int64(try offsets.uint32()))
        }
        var stsc = try walker.payload(of: tables.sampleToChunk, limit: limit)
        try stsc.skip(4)
        var runs: [(first: Int, perChunk: Int)] = []
        for _ in 0..<min(Int(try stsc.uint32()), count) {
            runs.append((Int(try stsc.uint32()), Int(try stsc.uint32())))
            try stsc.skip(4)
        }
        var sync: Set<Int>?
        if let stss = boxes.syncSamples {
            var c = try walker.payload(of: stss, limit: limit)
            try c.skip(4)
            var numbers = Set<Int>()
            for _ in 0..<min(Int(try c.uint32()), count) { numbers.insert(Int(try c.uint32())) }
            sync = numbers
        }
        var found: [(offset: Int64, size: Int, isSync: Bool)] = []
        outer: for (index, run) in runs.enumerated() where run.first >= 1 {
            let next = index + 1 < runs.count ? runs[index + 1].first : chunks.count + 1
            var chunk = run.first
            while chunk < next, chunk <= chunks.count {
                var position = chunks[chunk - 1]
                for _ in 0..<run.perChunk {
                    guard found.count < total else { break outer }
                    let number = found.count + 1
                    found.append((position, sizes[number - 1], sync?.contains(number) ?? true))
                    let (after, overflow) = position.addingReportingOverflow(Int64(sizes[number - 1]))
                    guard !overflow else { throw .malformed("sample \(number) of a track lies past 2^63 bytes") }
                    position = after
                }
                chunk += 1
            }
        }
        return found
    }
}
