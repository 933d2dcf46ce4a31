import Foundation
import Testing
import VidorientCore
import VidorientIO
import VidorientISOBMFF
import VidorientPhoto
import VidorientTestSupport

extension SharedMedia {
    /// The JPEG and WebP files there.
    static var photos: [String] {
        names.filter { ["jpg", "jpeg", "webp"].contains(($0 as NSString).pathExtension.lowercased()) }
    }
}

/// The reader for a file's format, as the integrator's dispatch will choose it: by signature.
func readPhoto(_ path: String) throws -> PhotoEvidence {
    let source = ReadAheadBytes(try FileBytes(path: path))
    let head = try source.read(at: 0, count: min(Int(source.size), MediaFormat.signatureLength))
    // The one reader switch (`PhotoReader`), HEIF included.
    return try PhotoReader.read(source, path: path, format: MediaFormat(signature: head))
}

/// A TIFF structure written in the test, independently of the reader: IFDs of (tag, type, count,
/// value bytes) entries; values longer than 4 bytes go after the IFD, at the offset the entry gives.
struct TIFFBuilder {
    struct Entry {
        var tag: UInt16
        var type: UInt16
        var count: UInt32
        var value: [UInt8]
        /// Written as the entry's value/offset field verbatim instead of `value` (to point anywhere).
        var rawOffset: UInt32? = nil
    }

    var little: Bool

    func u16(_ v: UInt16) -> [UInt8] { little ? [UInt8(v & 0xFF), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 0xFF)] }
    func u32(_ v: UInt32) -> [UInt8] {
        let b = [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
        return little ? b.reversed() : b
    }

    /// Entries' helpers.
    func short(_ tag: UInt16, _ values: UInt16...) -> Entry {
        Entry(tag: tag, type: 3, count: UInt32(values.count), value: values.flatMap(u16))
    }
    func long(_ tag: UInt16, _ values: UInt32...) -> Entry {
        Entry(tag: tag, type: 4, count: UInt32(values.count), value: values.flatMap(u32))
    }
    func ascii(_ tag: UInt16, _ text: String) -> Entry {
        let bytes = Array(text.utf8) + [0]
        return Entry(tag: tag, type: 2, count: UInt32(bytes.count), value: bytes)
    }

    /// Header plus one IFD at offset 8 (with `next` as its link), then `extra` bytes appended.
    func build(_ entries: [Entry], next: UInt32 = 0, extra: [UInt8] = []) -> [UInt8] {
        var out = (little ? Array("II".utf8) : Array("MM".utf8)) + u16(42) + u32(8)
        let dataStart = 8 + 2 + 12 * entries.count + 4
        var data: [UInt8] = []
        out += u16(UInt16(entries.count))
        for entry in entries {
            out += u16(entry.tag) + u16(entry.type) + u32(entry.count)
            if let raw = entry.rawOffset {
                out += u32(raw)
            } else if entry.value.count <= 4 {
                out += entry.value + [UInt8](repeating: 0, count: 4 - entry.value.count)
            } else {
                out += u32(UInt32(dataStart + data.count))
                data += entry.value
            }
        }
        return out + u32(next) + data + extra
    }

    /// An IFD to place at a known offset (for Exif/GPS/IFD1 pointers): its bytes, values following it.
    func ifd(_ entries: [Entry], at offset: Int, next: UInt32 = 0) -> [UInt8] {
        let dataStart = offset + 2 + 12 * entries.count + 4
        var data: [UInt8] = []
        var out = u16(UInt16(entries.count))
        for entry in entries {
            out += u16(entry.tag) + u16(entry.type) + u32(entry.count)
            if entry.value.count <= 4 {
                out += entry.value + [UInt8](repeating: 0, count: 4 - entry.value.count)
            } else {
                out += u32(UInt32(dataStart + data.count))
                data += entry.value
            }
        }
        return out + u32(next) + data
    }
}

/// The smallest JPEG header a frame reader needs: SOI, SOF0 (8-bit, 3 components), SOS.
func tinyJPEG(width: Int, height: Int, marker: UInt8 = 0xC0) -> [UInt8] {
    let sof: [UInt8] =
        [0xFF, marker, 0, 17, 8, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), 3]
        + [1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]
    return [0xFF, 0xD8] + sof + [0xFF, 0xDA, 0, 2, 0xFF, 0xD9]
}
