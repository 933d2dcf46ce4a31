import CTurboJPEG
import CZlib
package import VidorientCore

/// A picture written as PNG or JPEG without FFmpeg: JPEG through libjpeg-turbo (4:2:0, full-range
/// BT.601 as JFIF defines it, the accurate integer DCT), PNG through zlib (8-bit RGB, no filter,
/// level 2: a thumbnail a few percent larger, written several times faster than at 6). Both give
/// the same bytes for the same picture on every run and machine: libjpeg-turbo's SIMD paths for
/// these steps are exact, and zlib's output depends only on its input and level.
package enum StillEncoder {
    /// Encodes `picture`. `quality` (1–100, higher is better) applies to JPEG, as libjpeg's `-quality`.
    package static func encode(_ picture: Picture, as format: ImageFormat, quality: Int) throws(VidorientError)
        -> [UInt8]
    {
        guard picture.width > 0, picture.height > 0 else {
            throw .unsupported("could not encode \(format.rawValue): the picture has no pixels")
        }
        switch format {
        case .jpg: return try jpeg(picture, quality: max(1, min(100, quality)))
        case .png: return try png(picture)
        }
    }

    private static func jpeg(_ picture: Picture, quality: Int) throws(VidorientError) -> [UInt8] {
        if let reason = OpenedLibrary.turbojpeg.failure { throw .io("could not encode jpg: \(reason)") }
        guard let handle = tjInitCompress() else { throw .io("could not encode jpg: could not start libjpeg-turbo") }
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        defer { if let output { tjFree(output) } }
        let result = picture.pixels.withUnsafeBufferPointer {
            tjCompress2(
                handle, $0.baseAddress, Int32(picture.width), Int32(picture.width * 3), Int32(picture.height),
                Int32(TJPF_RGB.rawValue), &output, &size, Int32(TJSAMP_420.rawValue), Int32(quality), 0)
        }
        guard result == 0, let output else {
            throw .unsupported("could not encode jpg: \(String(cString: tjGetErrorStr2(handle)).lowercased())")
        }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }

    private static func png(_ picture: Picture) throws(VidorientError) -> [UInt8] {
        let rowBytes = picture.width * 3
        // Each row led by its filter type, 0: none.
        var rows = [UInt8](repeating: 0, count: (rowBytes + 1) * picture.height)
        rows.withUnsafeMutableBufferPointer { rows in
            picture.pixels.withUnsafeBufferPointer { pixels in
                for y in 0..<picture.height {
                    (rows.baseAddress! + y * (rowBytes + 1) + 1).update(
                        from: pixels.baseAddress! + y * rowBytes, count: rowBytes)
                }
            }
        }
        var compressedSize = compressBound(uLong(rows.count))
        var compressed = [UInt8](repeating: 0, count: Int(compressedSize))
        let status = compressed.withUnsafeMutableBufferPointer { target in
            rows.withUnsafeBufferPointer {
                compress2(target.baseAddress, &compressedSize, $0.baseAddress, uLong($0.count), 2)
            }
        }
        guard status == Z_OK else { throw .unsupported("could not encode png: zlib failed (\(status))") }
        compressed.removeSubrange(Int(compressedSize)...)

        // 8 bits, RGB, deflate, adaptive filtering's method, no interlace.
        let header = bigEndian(UInt32(picture.width)) + bigEndian(UInt32(picture.height)) + [8, 2, 0, 0, 0]
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        appendChunk("IHDR", header, to: &png)
        appendChunk("IDAT", compressed, to: &png)
        appendChunk("IEND", [], to: &png)
        return png
    }

    /// A PNG chunk: length, type, data, and the CRC-32 of type and data.
    private static func appendChunk(_ type: String, _ data: [UInt8], to png: inout [UInt8]) {
        png += bigEndian(UInt32(data.count))
        let start = png.count
        png += Array(type.utf8) + data
        let crc = png[start...].withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, uInt($0.count))) }
        png += bigEndian(crc)
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) }
    }
}
