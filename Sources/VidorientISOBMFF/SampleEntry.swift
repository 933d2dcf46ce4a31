import VidorientIO

/// The first sample description of a track's `stsd`, read in full: the fields of a visual or
/// audio sample entry (ISO/IEC 14496-12 §12.1.3, §12.2.3; QuickTime's sound description
/// versions 1 and 2) and the codec configuration boxes inside it.
struct SampleEntry: Sendable, Hashable {
    var format: FourCC
    /// The entry's `vendor` field, which FFmpeg reports as the stream's `vendor_id`.
    var vendor: [UInt8] = [0, 0, 0, 0]
    // Visual.
    var width = 0
    var height = 0
    var compressorName = ""
    // Audio.
    var soundVersion = 0
    var channels = 0
    var sampleSize = 0
    var sampleRate = 0
    /// Child boxes by type (the first of each), their payloads read whole up to a bound.
    var children: [FourCC: [UInt8]] = [:]
    /// `colr` boxes in file order (a file may carry `nclx` and `prof`).
    var colours: [[UInt8]] = []

    static let maximumChildSize = 1 << 20

    /// Reads the entry `box` of a track whose handler is `handler`. `isQuickTime` follows mov.c:
    /// version 1 and 2 sound descriptions are read in QuickTime files and when the entry says so.
    init<Source: ByteSource>(_ box: BoxHeader, handler: FourCC?, isQuickTime: Bool, walker: inout BoxWalker<Source>)
        throws(ISOBMFFError)
    {
        format = box.type
        var childOffset: Int64 = 8
        var c = try walker.payload(of: box, limit: 8 + 70)
        try c.skip(8)  // reserved, data reference index
        if handler == "vide", box.payloadSize >= 78 {
            try c.skip(4)  // version, revision
            vendor = Array(try c.take(4))
            try c.skip(8)  // temporal and spatial quality
            width = Int(try c.uint16())
            height = Int(try c.uint16())
            try c.skip(4 + 4 + 4 + 2)  // resolutions, data size, frame count
            // A Pascal string of at most 31 characters in a 32-byte field (mov.c keeps 31).
            let name = try c.take(32)
            let length = min(Int(name[name.startIndex]), 31)
            compressorName = QuickTimeTags.text(name.dropFirst().prefix(length))
            childOffset = 78
        } else if handler == "soun", box.payloadSize >= 28 {
            soundVersion = Int(try c.uint16())
            try c.skip(2)  // revision
            vendor = Array(try c.take(4))
            channels = Int(try c.uint16())
            sampleSize = Int(try c.uint16())
            try c.skip(4)  // compression ID, packet size
            sampleRate = Int(try c.uint32() >> 16)
            childOffset = 28
            if isQuickTime || soundVersion > 0 {
                if soundVersion == 1 {
                    childOffset += 16
                } else if soundVersion == 2 {
                    var v2 = try walker.payload(of: box, limit: 64)
                    try v2.skip(28 + 4)  // the fields above; the size of this structure
                    // A float from the file: NaN, an infinity or one past `Int` would trap in
                    // `Int(_:)` (issue 28); such a rate is unknown (0), as a missing one is.
                    let rate = Double(bitPattern: try v2.uint64())
                    sampleRate = rate >= 0 && rate < 1e12 ? Int(rate) : 0
                    channels = Int(try v2.uint32())
                    try v2.skip(4)
                    sampleSize = Int(try v2.uint32())
                    childOffset += 36
                }
            }
        }
        guard childOffset <= box.payloadSize else { return }
        for child in try walker.children(of: box, skipping: childOffset, depth: 7) {
            try read(child, walker: &walker)
        }
    }

    private mutating func read<Source: ByteSource>(_ child: BoxHeader, walker: inout BoxWalker<Source>)
        throws(ISOBMFFError)
    {
        guard child.payloadSize <= Self.maximumChildSize else { return }
        if child.type == "wave" {
            // QuickTime's sound decompression parameters hold `frma`, `esds` and friends.
            for inner in try walker.children(of: child, depth: 8) where inner.payloadSize <= Self.maximumChildSize {
                if children[inner.type] == nil {
                    children[inner.type] = try walker.payload(of: inner, limit: Self.maximumChildSize).bytes
                }
            }
            return
        }
        let payload = try walker.payload(of: child, limit: Self.maximumChildSize).bytes
        if child.type == "colr" { colours.append(payload) }
        if children[child.type] == nil { children[child.type] = payload }
    }

    /// The payload of a child box, without its version and flags for full boxes.
    func child(_ type: FourCC, fullBox: Bool = false) -> [UInt8]? {
        guard let payload = children[type] else { return nil }
        return fullBox ? (payload.count >= 4 ? Array(payload[4...]) : nil) : payload
    }
}
