import VidorientCore

/// What a sample entry's codec configuration box says about the stream, in the vocabulary
/// `inspect` reports (FFmpeg's profile and pixel-format names, which the report has always used).
/// Each reader follows its specification and FFmpeg's own reading of it (libavcodec's h264_ps.c,
/// hevc_ps.c, mpeg4audio.c; libavformat's mov.c for the boxes), so that the box layer and FFmpeg
/// describe a file alike; the differential test in VidorientTests holds them to it.
struct CodecFacts: Sendable, Hashable {
    var profile: String?
    var pixelFormat: String?
    var bitDepth: Int?
    var sampleRate: Int?
    var channels: Int?
}

/// Bits read most significant first from a NAL unit's payload, after removing its emulation
/// prevention bytes (the 0x03 in 00 00 03).
struct BitReader {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: some Collection<UInt8>, removingEmulationPrevention: Bool = false) {
        guard removingEmulationPrevention else {
            self.bytes = Array(bytes)
            return
        }
        self.bytes = DisplayOrientationSEI.removingEmulationPrevention(bytes)
    }

    var bitsLeft: Int { bytes.count * 8 - position }

    mutating func bits(_ count: Int) -> UInt32? {
        guard count <= 32, count <= bitsLeft else { return nil }
        var value: UInt32 = 0
        for _ in 0..<count {
            let bit = (bytes[position >> 3] >> (7 - UInt8(position & 7))) & 1
            value = value << 1 | UInt32(bit)
            position += 1
        }
        return value
    }

    mutating func skip(_ count: Int) -> Bool {
        guard count <= bitsLeft else { return false }
        position += count
        return true
    }

    /// Unsigned exp-Golomb, `ue(v)`.
    mutating func golomb() -> UInt32? {
        var zeros = 0
        while true {
            guard let bit = bits(1) else { return nil }
            if bit == 1 { break }
            zeros += 1
            guard zeros < 32 else { return nil }
        }
        guard let rest = bits(zeros) else { return nil }
        return (UInt32(1) << zeros) - 1 + rest
    }

    /// Signed exp-Golomb, `se(v)`.
    mutating func signedGolomb() -> Int32? {
        guard let code = golomb() else { return nil }
        return code & 1 == 1 ? Int32((code + 1) / 2) : -Int32(code / 2)
    }
}

enum CodecConfiguration {
    /// FFmpeg's name of a planar YUV (or gray) format: `yuv420p`, `yuv422p10le`, `gray12le`.
    /// `chroma` is 0 (monochrome), 1 (4:2:0), 2 (4:2:2) or 3 (4:4:4).
    static func planarFormat(chroma: Int, bitDepth: Int, grayName: Bool = true) -> String? {
        guard [8, 9, 10, 12, 14, 16].contains(bitDepth) else { return nil }
        let suffix = bitDepth == 8 ? "" : "\(bitDepth)le"
        switch chroma {
        case 0 where grayName: return bitDepth == 8 ? "gray" : "gray\(suffix)"
        case 0, 1: return "yuv420p\(suffix)"
        case 2: return "yuv422p\(suffix)"
        case 3: return "yuv444p\(suffix)"
        default: return nil
        }
    }

    // MARK: H.264

    /// The first SPS of an `avcC` (ISO/IEC 14496-15 §5.3.3.1), read as FFmpeg's H.264 parser reads
    /// it for the profile and pixel format.
    static func avc(_ avcC: [UInt8]) -> CodecFacts? {
        guard avcC.count >= 8, avcC[0] == 1, avcC[5] & 0x1F >= 1 else { return nil }
        let length = Int(avcC[6]) << 8 | Int(avcC[7])
        guard length >= 4, avcC.count >= 8 + length else { return nil }
        return avcSequenceParameterSet(Array(avcC[8..<8 + length]))
    }

    /// An SPS NAL unit, header byte included (H.264 §7.3.2.1.1).
    static func avcSequenceParameterSet(_ nal: [UInt8]) -> CodecFacts? {
        guard nal.count >= 4, nal[0] & 0x1F == 7 else { return nil }
        var r = BitReader(nal.dropFirst(), removingEmulationPrevention: true)
        guard let profileIDC = r.bits(8), let constraints = r.bits(8), r.skip(8), r.golomb() != nil else { return nil }
        var chroma = 1
        var bitDepth = 8
        if [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135].contains(profileIDC) {
            guard let format = r.golomb(), format <= 3 else { return nil }
            chroma = Int(format)
            if chroma == 3 { guard r.bits(1) != nil else { return nil } }  // separate_colour_plane_flag
            guard let luma = r.golomb(), r.golomb() != nil, luma <= 6 else { return nil }
            bitDepth = Int(luma) + 8
        }
        // libavcodec's ff_h264_get_profile: constraint_set1 makes Baseline "Constrained", and
        // constraint_set3 makes the High 10/4:2:2/4:4:4 profiles "Intra".
        let constrained = constraints & 0x40 != 0
        let intra = constraints & 0x10 != 0
        let profile: String? =
            switch profileIDC {
            case 66: constrained ? "Constrained Baseline" : "Baseline"
            case 77: "Main"
            case 88: "Extended"
            case 100: "High"
            case 110: intra ? "High 10 Intra" : "High 10"
            case 122: intra ? "High 4:2:2 Intra" : "High 4:2:2"
            case 244: intra ? "High 4:4:4 Intra" : "High 4:4:4 Predictive"
            case 44: "CAVLC 4:4:4"
            case 118: "Multiview High"
            case 128: "Stereo High"
            case 144: "High 4:4:4"
            default: nil
            }
        // The H.264 parser names 4:2:0 for monochrome too.
        let format = planarFormat(chroma: chroma == 0 ? 1 : chroma, bitDepth: bitDepth)
        return CodecFacts(profile: profile, pixelFormat: format, bitDepth: format == nil ? nil : bitDepth)
    }

    // MARK: HEVC

    /// An `hvcC` (ISO/IEC 14496-15 §8.3.3.1): the profile space, tier and profile, chroma format
    /// and bit depth are in its fixed header, copied there from the SPS.
    static func hevc(_ hvcC: [UInt8]) -> CodecFacts? {
        guard hvcC.count >= 23 else { return nil }
        var profileIDC = Int(hvcC[1] & 0x1F)
        if profileIDC == 0 {
            // hevc_ps.c: a zero profile takes the first compatibility flag that is set.
            let flags = UInt32(hvcC[2]) << 24 | UInt32(hvcC[3]) << 16 | UInt32(hvcC[4]) << 8 | UInt32(hvcC[5])
            profileIDC = (1..<32).first { flags & (UInt32(1) << (31 - UInt32($0))) != 0 } ?? 0
        }
        let chroma = Int(hvcC[16] & 0x03)
        let bitDepth = Int(hvcC[17] & 0x07) + 8
        let profile: String? =
            switch profileIDC {
            case 1: "Main"
            case 2: "Main 10"
            case 3: "Main Still Picture"
            case 4: "Rext"
            default: nil
            }
        let format = planarFormat(chroma: chroma, bitDepth: bitDepth)
        return CodecFacts(profile: profile, pixelFormat: format, bitDepth: format == nil ? nil : bitDepth)
    }

    // MARK: AV1 and VP9

    /// An `av1C` (AV1 Codec ISOBMFF Binding §2.3): profile, bit depth, monochrome, subsampling.
    /// The pixel format is the one libdav1d, FFmpeg's AV1 decoder here, gives.
    static func av1(_ av1C: [UInt8]) -> CodecFacts? {
        guard av1C.count >= 4, av1C[0] == 0x81 else { return nil }
        let seqProfile = av1C[1] >> 5
        let highBitDepth = av1C[2] & 0x40 != 0
        let twelveBit = av1C[2] & 0x20 != 0
        let monochrome = av1C[2] & 0x10 != 0
        let subsamplingX = av1C[2] & 0x08 != 0
        let subsamplingY = av1C[2] & 0x04 != 0
        let bitDepth = highBitDepth ? (twelveBit ? 12 : 10) : 8
        let chroma = monochrome ? 0 : (subsamplingX ? (subsamplingY ? 1 : 2) : 3)
        let profile: String? =
            switch seqProfile {
            case 0: "Main"
            case 1: "High"
            case 2: "Professional"
            default: nil
            }
        let format = planarFormat(chroma: chroma, bitDepth: bitDepth)
        return CodecFacts(profile: profile, pixelFormat: format, bitDepth: format == nil ? nil : bitDepth)
    }

    /// A `vpcC` version 1 (VP Codec ISO Media File Format Binding §2.2).
    static func vp9(_ vpcC: [UInt8]) -> CodecFacts? {
        guard vpcC.count >= 12, vpcC[0] == 1 else { return nil }
        let profile = Int(vpcC[4])
        let bitDepth = Int(vpcC[6] >> 4)
        let subsampling = (vpcC[6] >> 1) & 0x07
        let chroma: Int? =
            switch subsampling {
            case 0, 1: 1
            case 2: 2
            case 3: 3
            default: nil
            }
        let format = chroma.flatMap { planarFormat(chroma: $0, bitDepth: bitDepth, grayName: false) }
        return CodecFacts(
            profile: (0...3).contains(profile) ? "Profile \(profile)" : nil, pixelFormat: format,
            bitDepth: format == nil ? nil : bitDepth)
    }

    // MARK: MPEG-4 audio and video

    /// An `esds` box's ES_Descriptor (ISO/IEC 14496-1 §7.2.6.5): the object type of its
    /// DecoderConfigDescriptor and the DecoderSpecificInfo's bytes.
    struct ElementaryStream: Sendable, Hashable {
        var objectType: UInt8
        var averageBitRate: UInt32
        var decoderSpecificInfo: [UInt8]
    }

    static func elementaryStream(_ esds: [UInt8]) -> ElementaryStream? {
        // Version and flags, then descriptors: tag, then a size in up to four 7-bit groups.
        var position = 4
        func descriptor() -> (tag: UInt8, start: Int, size: Int)? {
            guard position < esds.count else { return nil }
            let tag = esds[position]
            position += 1
            var size = 0
            for _ in 0..<4 {
                guard position < esds.count else { return nil }
                let byte = esds[position]
                position += 1
                size = size << 7 | Int(byte & 0x7F)
                if byte & 0x80 == 0 { break }
            }
            return (tag, position, size)
        }
        guard let es = descriptor(), es.tag == 3, position + 3 <= esds.count else { return nil }
        let flags = esds[position + 2]
        position += 3
        if flags & 0x80 != 0 { position += 2 }  // dependsOn_ES_ID
        if flags & 0x40 != 0, position < esds.count { position += 1 + Int(esds[position]) }  // URL
        if flags & 0x20 != 0 { position += 2 }  // OCR_ES_Id
        guard let config = descriptor(), config.tag == 4, position + 13 <= esds.count else { return nil }
        let objectType = esds[position]
        let average = esds[position + 9..<position + 13].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        position += 13
        var info: [UInt8] = []
        if position < config.start + config.size, let specific = descriptor(), specific.tag == 5 {
            let end = min(esds.count, specific.start + specific.size)
            info = Array(esds[specific.start..<end])
        }
        return ElementaryStream(objectType: objectType, averageBitRate: average, decoderSpecificInfo: info)
    }

    static let mpeg4SampleRates = [
        96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350,
    ]
    /// libavcodec's ff_mpeg4audio_channels: the channel configuration's channel count.
    static let mpeg4Channels = [0, 1, 2, 3, 4, 5, 6, 8, 0, 0, 0, 7, 8, 0, 8]

    /// An AudioSpecificConfig (ISO/IEC 14496-3 §1.6.2.1), as avpriv_mpeg4audio_get_config2 reads
    /// it: the profile is named after the first object type (5 is HE-AAC, 29 HE-AACv2), the rate
    /// is the SBR extension's when one is signalled.
    static func audioSpecificConfig(_ config: [UInt8]) -> CodecFacts? {
        var r = BitReader(config)
        func objectType() -> UInt32? {
            guard let type = r.bits(5) else { return nil }
            return type == 31 ? r.bits(6).map { 32 + $0 } : type
        }
        func sampleRate() -> Int? {
            guard let index = r.bits(4) else { return nil }
            if index == 15 { return r.bits(24).map(Int.init) }
            return Int(index) < mpeg4SampleRates.count ? mpeg4SampleRates[Int(index)] : 0
        }
        guard let first = objectType(), var rate = sampleRate(), let channelConfig = r.bits(4) else { return nil }
        // mpeg4audio.c: object type 29 (PS) is read as SBR unless the bits look like MP3onMP4.
        var isSBR = first == 5
        if first == 29, let peek = peekBits(config, skipping: config.count * 8 - r.bitsLeft, count: 9) {
            isSBR = !((peek >> 6) & 0x03 != 0 && peek & 0x3F == 0)
        }
        if isSBR, let extended = sampleRate() { rate = extended }
        let names: [UInt32: String] = [
            1: "Main", 2: "LC", 3: "SSR", 4: "LTP", 5: "HE-AAC", 29: "HE-AACv2", 23: "LD", 39: "ELD",
        ]
        let channels = Int(channelConfig) < mpeg4Channels.count ? mpeg4Channels[Int(channelConfig)] : 0
        return CodecFacts(profile: names[first], sampleRate: rate, channels: channels)
    }

    private static func peekBits(_ bytes: [UInt8], skipping: Int, count: Int) -> UInt32? {
        var r = BitReader(bytes)
        guard r.skip(skipping) else { return nil }
        return r.bits(count)
    }

    /// The visual object sequence's profile_and_level_indication (ISO/IEC 14496-2 §6.2.2), whose
    /// high nibble FFmpeg's MPEG-4 decoder takes as the profile.
    static func mpeg4VisualProfile(_ info: [UInt8]) -> String? {
        var index = 0
        while index + 4 < info.count {
            if info[index] == 0, info[index + 1] == 0, info[index + 2] == 1, info[index + 3] == 0xB0 {
                let names = [
                    "Simple Profile", "Simple Scalable Profile", "Core Profile", "Main Profile", "N-bit Profile",
                    "Scalable Texture Profile", "Simple Face Animation Profile", "Basic Animated Texture Profile",
                    "Hybrid Profile", "Advanced Real Time Simple Profile", "Core Scalable Profile",
                    "Advanced Coding Profile", "Advanced Core Profile", "Advanced Scalable Texture Profile",
                    "Simple Studio Profile", "Advanced Simple Profile",
                ]
                return names[Int(info[index + 4] >> 4)]
            }
            index += 1
        }
        return nil
    }

    /// The video object layer's aspect_ratio_info (ISO/IEC 14496-2 §6.2.3), as FFmpeg's MPEG-4
    /// decoder turns it into a frame's sample aspect ratio; nil when unstated.
    static func mpeg4VisualAspectRatio(_ info: [UInt8]) -> String? {
        var index = 0
        while index + 4 < info.count {
            if info[index] == 0, info[index + 1] == 0, info[index + 2] == 1, info[index + 3] & 0xF0 == 0x20 {
                var r = BitReader(info[(index + 4)...])
                guard r.skip(1 + 8), let identified = r.bits(1) else { return nil }
                if identified == 1 { guard r.skip(7) else { return nil } }
                guard let aspect = r.bits(4) else { return nil }
                let table: [UInt32: String] = [1: "1:1", 2: "12:11", 3: "10:11", 4: "16:11", 5: "40:33"]
                if aspect == 15, let width = r.bits(8), let height = r.bits(8), width > 0, height > 0 {
                    let reduced = Rational.reduce(Int64(width), Int64(height), maximum: 255)
                    return "\(reduced.0):\(reduced.1)"
                }
                return table[aspect]
            }
            index += 1
        }
        return nil
    }

    // MARK: AC-3 and E-AC-3

    /// Channels of each AC-3 `acmod` (ATSC A/52 Table 5.8), before the LFE.
    static let ac3Channels = [2, 1, 2, 3, 3, 4, 4, 5]

    /// `dac3` (ETSI TS 102 366 §F.4): fscod, bsid, bsmod, acmod, lfeon.
    static func ac3(_ dac3: [UInt8]) -> CodecFacts? {
        guard dac3.count >= 3 else { return nil }
        var r = BitReader(dac3)
        guard r.skip(2 + 5 + 3), let acmod = r.bits(3), let lfe = r.bits(1) else { return nil }
        return CodecFacts(channels: ac3Channels[Int(acmod)] + Int(lfe))
    }

    /// `dec3` (ETSI TS 102 366 §F.6): the first independent substream's acmod and lfeon, and the
    /// channel locations its dependent substreams add (mov.c's mov_read_dec3).
    static func eac3(_ dec3: [UInt8]) -> CodecFacts? {
        guard dec3.count >= 5 else { return nil }
        var r = BitReader(dec3)
        guard r.skip(13 + 3), r.skip(2 + 5 + 1 + 1 + 3), let acmod = r.bits(3), let lfe = r.bits(1), r.skip(3),
            let dependents = r.bits(4)
        else { return nil }
        var channels = ac3Channels[Int(acmod)] + Int(lfe)
        if dependents > 0, let locations = r.bits(9) {
            // Each location bit adds a pair of channels, except the single ones (Lc/Rc pair counts 2).
            let pairs: [Int] = [2, 2, 2, 1, 1, 2, 2, 1, 1]
            for bit in 0..<9 where locations & (UInt32(1) << (8 - UInt32(bit))) != 0 { channels += pairs[bit] }
        }
        return CodecFacts(channels: channels)
    }
}
