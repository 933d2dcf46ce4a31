/// The display-orientation SEI message of H.264 (D.1.27) and HEVC (D.2.15), read straight from
/// a packet's NAL units: no decoding, so `inspect` needs no decoder to see it.
///
/// Both standards give it payload type 47 and the same leading fields: a cancel flag, then
/// `hor_flip`, `ver_flip` and `anticlockwise_rotation` (in units of 2^-16 of a full turn),
/// applied to the decoded picture in that order: flips first, then the rotation.
public struct DisplayOrientationSEI: Sendable, Hashable {
    public var horizontalFlip: Bool
    public var verticalFlip: Bool
    /// Anticlockwise rotation in 1/65536 of a turn.
    public var anticlockwiseRotation: UInt16

    public enum Codec: Sendable {
        case h264, hevc
    }

    /// How NAL units are delimited in the packet.
    public enum Framing: Sendable, Hashable {
        /// MP4/Matroska style: each NAL unit preceded by its length in this many bytes (1, 2 or 4).
        case lengthPrefixed(Int)
        /// Byte stream (MPEG-TS, raw .h264): start codes 00 00 01.
        case annexB
    }

    /// The matrix this SEI asks for, in tkhd order: flips, then the turn (clockwise on a y-down
    /// screen is minus the anticlockwise angle).
    public var matrix: DisplayMatrix {
        let clockwise = -Double(anticlockwiseRotation) * 360 / 65536
        let radians = clockwise * Double.pi / 180
        // Exact 0 and ±1 for the right angles the SEI is nearly always used for.
        func snap(_ value: Double) -> Double {
            for exact in [-1.0, 0, 1] where abs(value - exact) < 1e-12 { return exact }
            return value
        }
        let (c, s) = (snap(cos(radians)), snap(sin(radians)))
        let turn = DisplayMatrix(a: c, b: s, c: -s, d: c)
        let flips = DisplayMatrix(a: horizontalFlip ? -1 : 1, b: 0, c: 0, d: verticalFlip ? -1 : 1)
        return turn.after(flips)
    }

    /// The first display-orientation SEI in `packet`; nil when there is none or it cancels.
    public static func find(in packet: [UInt8], codec: Codec, framing: Framing) -> DisplayOrientationSEI? {
        for unit in nalUnits(packet, framing: framing) {
            guard let first = unit.first else { continue }
            let isSEI: Bool
            let headerSize: Int
            switch codec {
            case .h264:
                isSEI = first & 0x1F == 6
                headerSize = 1
            case .hevc:
                let type = (first >> 1) & 0x3F
                isSEI = type == 39 || type == 40
                headerSize = 2
            }
            guard isSEI, unit.count > headerSize else { continue }
            let payload = removingEmulationPrevention(unit.dropFirst(headerSize))
            if let found = displayOrientation(inSEI: payload) { return found }
        }
        return nil
    }

    /// The NAL length size of an `avcC` or `hvcC` record, or nil when `extradata` is not one
    /// (then the stream is in Annex B form).
    public static func framing(extradata: [UInt8], codec: Codec) -> Framing {
        switch codec {
        case .h264 where extradata.count >= 7 && extradata[0] == 1:
            return .lengthPrefixed(Int(extradata[4] & 0x03) + 1)
        case .hevc where extradata.count >= 23 && extradata[0] == 1:
            return .lengthPrefixed(Int(extradata[21] & 0x03) + 1)
        default:
            return .annexB
        }
    }

    static func nalUnits(_ packet: [UInt8], framing: Framing) -> [ArraySlice<UInt8>] {
        var units: [ArraySlice<UInt8>] = []
        switch framing {
        case .lengthPrefixed(let size):
            var offset = 0
            while offset + size <= packet.count {
                var length = 0
                for byte in packet[offset..<offset + size] { length = length << 8 | Int(byte) }
                offset += size
                guard length > 0, offset + length <= packet.count else { break }
                units.append(packet[offset..<offset + length])
                offset += length
            }
        case .annexB:
            var starts: [Int] = []
            var index = 0
            while index + 2 < packet.count {
                if packet[index] == 0 && packet[index + 1] == 0 && packet[index + 2] == 1 {
                    starts.append(index + 3)
                    index += 3
                } else {
                    index += 1
                }
            }
            for (n, start) in starts.enumerated() {
                var end = n + 1 < starts.count ? starts[n + 1] - 3 : packet.count
                // A four-byte start code leaves a zero at the end of the previous unit.
                while end > start && packet[end - 1] == 0 { end -= 1 }
                if end > start { units.append(packet[start..<end]) }
            }
        }
        return units
    }

    /// NAL payload to RBSP: every 00 00 03 loses its 03 (H.264 7.4.1, HEVC 7.4.2). Also what the
    /// box layer's codec-configuration reader uses for the SPS.
    public static func removingEmulationPrevention(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var zeros = 0
        for byte in bytes {
            if zeros >= 2 && byte == 3 {
                zeros = 0
                continue
            }
            zeros = byte == 0 ? zeros + 1 : 0
            out.append(byte)
        }
        return out
    }

    /// Walks the SEI messages of one SEI RBSP for payload type 47.
    static func displayOrientation(inSEI rbsp: [UInt8]) -> DisplayOrientationSEI? {
        var offset = 0
        // Messages until the RBSP trailing bits (a single 0x80).
        while offset < rbsp.count && !(rbsp[offset] == 0x80 && offset == rbsp.count - 1) {
            // Type and size: runs of 0xFF, each worth 255, then the last byte.
            func value() -> Int? {
                var total = 0
                while offset < rbsp.count && rbsp[offset] == 0xFF {
                    total += 255
                    offset += 1
                }
                guard offset < rbsp.count else { return nil }
                defer { offset += 1 }
                return total + Int(rbsp[offset])
            }
            guard let type = value(), let size = value() else { return nil }
            guard offset + size <= rbsp.count else { return nil }
            if type == 47 {
                var bits = BitReader(rbsp[offset..<offset + size])
                guard let cancel = bits.read(1), cancel == 0 else { return nil }
                guard let horizontal = bits.read(1), let vertical = bits.read(1), let rotation = bits.read(16) else {
                    return nil
                }
                return DisplayOrientationSEI(
                    horizontalFlip: horizontal == 1, verticalFlip: vertical == 1,
                    anticlockwiseRotation: UInt16(rotation))
            }
            offset += size
        }
        return nil
    }
}

/// Reads big-endian bit fields.
struct BitReader {
    private let bytes: ArraySlice<UInt8>
    private var position = 0

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
    }

    mutating func read(_ count: Int) -> Int? {
        guard position + count <= bytes.count * 8 else { return nil }
        var value = 0
        for _ in 0..<count {
            let byte = bytes[bytes.startIndex + position / 8]
            value = value << 1 | Int((byte >> (7 - UInt8(position % 8))) & 1)
            position += 1
        }
        return value
    }
}
