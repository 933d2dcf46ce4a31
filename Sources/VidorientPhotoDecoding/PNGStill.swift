import CLibPNG
package import VidorientCore

/// A PNG's pixels through libpng: every colour type and bit depth (a palette, grey, 16 bits,
/// interlaced) as 8-bit RGB, transparency composited onto black (as a WebP's), a wrong checksum
/// read past as FFmpeg, libvips and exiftool do. The picture is decoded whole, then shrunk by the
/// caller (`Picture.resized`).
package enum PNGStill {
    /// The most pixels a PNG is decoded at: three bytes each, 120 MB at this size, within the 400 MB
    /// any single input may take; a header can claim 2³¹ × 2³¹ in a few bytes
    /// (docs/hostile-input.md, "Memory bound").
    package static let maximumPixels = 40_000_000

    package static func decode(_ png: [UInt8]) throws(VidorientError) -> Picture {
        if let reason = OpenedLibrary.libpng.failure { throw VidorientError(reason) }
        var error = [CChar](repeating: 0, count: 300)
        func reason() -> String {
            String(cMessage: error)
        }
        return try png.withUnsafeBufferPointer { bytes in
            Result { () throws(VidorientError) -> Picture in
                var width: UInt32 = 0, height: UInt32 = 0
                guard let handle = vo_png_open(bytes.baseAddress, bytes.count, &width, &height, &error, error.count)
                else { throw VidorientError("libpng could not read the png: \(reason())") }
                defer { vo_png_close(handle) }
                let (columns, rows) = (Int(width), Int(height))
                // Two of the header's 32-bit numbers: their product checked before it is trusted.
                let (count, overflow) = columns.multipliedReportingOverflow(by: rows)
                guard columns > 0, rows > 0, !overflow, count <= maximumPixels else {
                    throw .unsupported(
                        "the png claims \(width)x\(height) pixels, more than the \(maximumPixels) decoded")
                }
                var pixels = [UInt8](repeating: 0, count: columns * rows * 3)
                let status = pixels.withUnsafeMutableBufferPointer {
                    vo_png_read_rgb(handle, $0.baseAddress, columns * 3, &error, error.count)
                }
                guard status == 0 else { throw VidorientError("libpng could not decode the png: \(reason())") }
                return Picture(width: columns, height: rows, pixels: pixels)
            }
        }.get()
    }
}
