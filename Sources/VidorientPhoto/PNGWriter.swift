import CZlib
package import VidorientCore

/// A picture written as a PNG without FFmpeg: 8-bit RGB, no filter, zlib at level 2 (a thumbnail a
/// few percent larger, written several times faster than at 6), its chunks by
/// `PNGReader.appendChunk`, as normalize's rebuilt PNGs are. The same picture gives the same bytes
/// on every run and machine: zlib's output depends only on its input and level.
package enum PNGWriter {
    package static func encode(_ picture: Picture) throws(VidorientError) -> [UInt8] {
        guard picture.width > 0, picture.height > 0 else {
            throw .unsupported("could not encode png: the picture has no pixels")
        }
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

        // 8 bits, RGB, deflate, adaptive filtering's method, no interlace.
        let header =
            PNGReader.bigEndian(UInt32(picture.width)) + PNGReader.bigEndian(UInt32(picture.height)) + [8, 2, 0, 0, 0]
        var png = PNGReader.signature
        PNGReader.appendChunk(Array("IHDR".utf8), header, to: &png)
        PNGReader.appendChunk(Array("IDAT".utf8), compressed[..<Int(compressedSize)], to: &png)
        PNGReader.appendChunk(Array("IEND".utf8), [], to: &png)
        return png
    }
}
