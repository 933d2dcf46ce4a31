import CWebP
package import VidorientCore

/// A still WebP (lossy or lossless) through libwebp, shrunk while decoding: libwebp's rescaler
/// (area averaging) writes the picture at the size asked, so a lossy photo is never held whole.
/// Transparency is flattened onto black, as `WebPAnimation` does an animation's first frame: the
/// pixels are decoded premultiplied, which also keeps the colour under transparent pixels out of
/// their neighbours when shrinking.
package enum WebPStill {
    /// The most pixels a still WebP is decoded from: a lossless one is held whole, four bytes a
    /// pixel, so 160 MB at this size, within the 400 MB any single input may take; a header can
    /// claim 16383×16383 (1 GB) in a few bytes.
    package static let maximumPixels = 40_000_000

    /// The WebP at `width`×`height` (its own size when either is larger: the caller enlarges).
    package static func decode(_ webp: [UInt8], width: Int, height: Int) throws(VidorientError) -> Picture {
        if let reason = OpenedLibrary.webp.failure { throw VidorientError(reason) }
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else { throw VidorientError("libwebp version mismatch") }
        guard WebPGetFeatures(webp, webp.count, &config.input) == VP8_STATUS_OK,
            config.input.width > 0, config.input.height > 0
        else { throw VidorientError("libwebp could not read the webp header") }
        let (storedWidth, storedHeight) = (Int(config.input.width), Int(config.input.height))
        guard !storedWidth.multipliedReportingOverflow(by: storedHeight).overflow,
            storedWidth * storedHeight <= maximumPixels
        else {
            throw .unsupported(
                "the webp claims \(storedWidth)x\(storedHeight) pixels, more than the \(maximumPixels) decoded")
        }
        let shrink = width > 0 && height > 0 && width <= storedWidth && height <= storedHeight
        let (outWidth, outHeight) = shrink ? (width, height) : (storedWidth, storedHeight)
        config.options.use_threads = 0
        if shrink && (outWidth, outHeight) != (storedWidth, storedHeight) {
            config.options.use_scaling = 1
            config.options.scaled_width = Int32(outWidth)
            config.options.scaled_height = Int32(outHeight)
        }
        var rgba = [UInt8](repeating: 0, count: outWidth * outHeight * 4)
        let status = rgba.withUnsafeMutableBufferPointer { target in
            config.output.colorspace = MODE_rgbA
            config.output.is_external_memory = 1
            config.output.u.RGBA.rgba = target.baseAddress
            config.output.u.RGBA.stride = Int32(outWidth * 4)
            config.output.u.RGBA.size = target.count
            defer { WebPFreeDecBuffer(&config.output) }
            return WebPDecode(webp, webp.count, &config)
        }
        guard status == VP8_STATUS_OK else {
            throw VidorientError("libwebp could not decode the webp (status \(status.rawValue))")
        }
        let pixels = [UInt8](unsafeUninitializedCapacity: outWidth * outHeight * 3) { rgb, written in
            for pixel in 0..<(outWidth * outHeight) {
                rgb[3 * pixel] = rgba[4 * pixel]
                rgb[3 * pixel + 1] = rgba[4 * pixel + 1]
                rgb[3 * pixel + 2] = rgba[4 * pixel + 2]
            }
            written = outWidth * outHeight * 3
        }
        return Picture(width: outWidth, height: outHeight, pixels: pixels)
    }
}
