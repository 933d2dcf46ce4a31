import CWebP
package import VidorientCore

/// Lossless WebP pixels through libwebp: decoding to RGBA and encoding back with `exact` set, so
/// that even the colour under fully transparent pixels survives (libwebp's simple lossless API,
/// and FFmpeg's wrapper, which cannot set `exact`, replace it).
package enum WebPLossless {
    /// An RGBA picture, four bytes a pixel, rows top to bottom.
    package struct Pixels: Sendable, Hashable {
        package var width: Int
        package var height: Int
        package var rgba: [UInt8]

        package init(width: Int, height: Int, rgba: [UInt8]) {
            self.width = width
            self.height = height
            self.rgba = rgba
        }
    }

    package static func decode(_ webp: [UInt8]) throws(VidorientError) -> Pixels {
        var width: Int32 = 0, height: Int32 = 0
        guard WebPGetInfo(webp, webp.count, &width, &height) != 0, width > 0, height > 0 else {
            throw VidorientError("libwebp could not read the webp header")
        }
        guard Int(width) * Int(height) <= JPEGDecoder.maximumPixels else {
            throw .unsupported(
                "the webp claims \(width)x\(height) pixels, more than the \(JPEGDecoder.maximumPixels) allowed")
        }
        guard let decoded = WebPDecodeRGBA(webp, webp.count, &width, &height) else {
            throw VidorientError("libwebp could not decode the webp")
        }
        defer { WebPFree(decoded) }
        return Pixels(
            width: Int(width), height: Int(height),
            rgba: Array(UnsafeBufferPointer(start: decoded, count: Int(width) * Int(height) * 4)))
    }

    /// A lossless WebP (a simple-format `RIFF`/`VP8L` file) of `pixels`, every RGBA value kept.
    package static func encode(_ pixels: Pixels) throws(VidorientError) -> [UInt8] {
        var config = WebPConfig()
        guard WebPConfigInit(&config) != 0 else { throw VidorientError("libwebp version mismatch") }
        config.lossless = 1
        config.exact = 1
        config.method = 4
        config.quality = 75
        var picture = WebPPicture()
        guard WebPPictureInit(&picture) != 0 else { throw VidorientError("libwebp version mismatch") }
        defer { WebPPictureFree(&picture) }
        picture.use_argb = 1
        picture.width = Int32(pixels.width)
        picture.height = Int32(pixels.height)
        guard WebPPictureImportRGBA(&picture, pixels.rgba, Int32(pixels.width * 4)) != 0 else {
            throw VidorientError("libwebp could not take the pixels")
        }
        var writer = WebPMemoryWriter()
        WebPMemoryWriterInit(&writer)
        defer { WebPMemoryWriterClear(&writer) }
        let encoded = withUnsafeMutablePointer(to: &writer) { writerPointer in
            picture.writer = WebPMemoryWrite
            picture.custom_ptr = UnsafeMutableRawPointer(writerPointer)
            return WebPEncode(&config, &picture)
        }
        guard encoded != 0, let memory = writer.mem else {
            throw VidorientError("libwebp could not encode the picture (error \(picture.error_code.rawValue))")
        }
        return Array(UnsafeBufferPointer(start: memory, count: writer.size))
    }
}
