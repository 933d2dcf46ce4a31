import Testing
import VidorientCore
import VidorientTestSupport

/// An H.264 SEI NAL unit holding one display-orientation message, as an encoder writes it.
private func h264SEI(cancel: Bool = false, hflip: Bool, vflip: Bool, rotation: UInt16)
    -> [UInt8]
{
    // cancel(1) hor_flip(1) ver_flip(1) anticlockwise_rotation(16) repetition_period ue(v)=1 ('1') extension(1)=0
    var bits: [Int] = [cancel ? 1 : 0]
    if !cancel {
        bits += [hflip ? 1 : 0, vflip ? 1 : 0]
        bits += (0..<16).map { Int(rotation >> (15 - UInt16($0))) & 1 }
        bits += [1, 0]
    }
    bits.append(1)  // rbsp_stop_one_bit of the payload's byte alignment
    while bits.count % 8 != 0 { bits.append(0) }
    let payload = stride(from: 0, to: bits.count, by: 8).map { i in UInt8(bits[i..<i + 8].reduce(0) { $0 << 1 | $1 }) }
    var rbsp: [UInt8] = [0x05, 2, 0, 0]  // a user-data payload (type 5, 2 bytes) first: the parser must skip it
    rbsp += [47, UInt8(payload.count)] + payload + [0x80]
    var nal: [UInt8] = [0x06]
    var zeros = 0
    for byte in rbsp {
        // Emulation prevention, as the encoder must insert it.
        if zeros >= 2 && byte <= 3 {
            nal.append(3)
            zeros = 0
        }
        nal.append(byte)
        zeros = byte == 0 ? zeros + 1 : 0
    }
    return nal
}

@Suite struct DisplayOrientationSEITests {
    @Test(
        arguments: [
            (UInt16(0), false, false, 1), (49152, false, false, 6), (16384, false, false, 8), (32768, false, false, 3),
            (0, true, false, 2), (0, false, true, 4), (32768, true, true, 1),
            // Flips come first, then the anticlockwise turn.
            (16384, true, false, 5), (49152, true, false, 7),
        ] as [(UInt16, Bool, Bool, Int)])
    func orientationFromTheSpecification(rotation: UInt16, hflip: Bool, vflip: Bool, exif: Int) throws {
        let nal = h264SEI(hflip: hflip, vflip: vflip, rotation: rotation)
        let packet: [UInt8] = [0, 0, 0, UInt8(nal.count)] + nal + [0, 0, 0, 2, 0x65, 0x88]
        let sei = try #require(DisplayOrientationSEI.find(in: packet, codec: .h264, framing: .lengthPrefixed(4)))
        #expect(sei.anticlockwiseRotation == rotation)
        #expect(sei.matrix.analysis.orientation?.exif == exif)
        // The same bytes in Annex B framing.
        let annexB: [UInt8] = [0, 0, 0, 1] + nal + [0, 0, 1, 0x65, 0x88]
        #expect(DisplayOrientationSEI.find(in: annexB, codec: .h264, framing: .annexB) == sei)
    }

    @Test func hevcPrefixSEI() throws {
        var nal = h264SEI(hflip: false, vflip: false, rotation: 49152)
        nal.removeFirst()
        let hevc: [UInt8] = [39 << 1, 1] + nal
        let sei = try #require(
            DisplayOrientationSEI.find(
                in: [0, 0, 0, UInt8(hevc.count)] + hevc, codec: .hevc, framing: .lengthPrefixed(4)))
        #expect(sei.matrix.analysis.orientation == .right)
    }

    @Test func cancelledOrAbsentGivesNothing() {
        let nal = h264SEI(cancel: true, hflip: false, vflip: false, rotation: 0)
        #expect(
            DisplayOrientationSEI.find(
                in: [0, 0, 0, UInt8(nal.count)] + nal, codec: .h264, framing: .lengthPrefixed(4)) == nil)
        #expect(
            DisplayOrientationSEI.find(in: [0, 0, 0, 2, 0x65, 0x88], codec: .h264, framing: .lengthPrefixed(4)) == nil)
        // Truncated and garbage packets never crash.
        let full = [0, 0, 0, UInt8(nal.count)] + nal
        for cut in 0..<full.count {
            _ = DisplayOrientationSEI.find(in: Array(full.prefix(cut)), codec: .h264, framing: .lengthPrefixed(4))
        }
        var random = SplitMix64(state: 0x5EED)  // the garbage is the same on every run
        for _ in 0..<2000 {
            let bytes = (0..<Int.random(in: 0..<64, using: &random)).map { _ in
                UInt8.random(in: 0...255, using: &random)
            }
            _ = DisplayOrientationSEI.find(in: bytes, codec: .h264, framing: .annexB)
            _ = DisplayOrientationSEI.find(in: bytes, codec: .hevc, framing: .lengthPrefixed(2))
        }
    }

    @Test func framingFromExtradata() {
        #expect(
            DisplayOrientationSEI.framing(extradata: [1, 0x64, 0, 0x1F, 0xFF, 0xE1, 0], codec: .h264)
                == .lengthPrefixed(4))
        #expect(DisplayOrientationSEI.framing(extradata: [0, 0, 0, 1, 0x67], codec: .h264) == .annexB)
        #expect(DisplayOrientationSEI.framing(extradata: [], codec: .hevc) == .annexB)
    }
}
