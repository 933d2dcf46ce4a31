import CWebP
package import VidorientCore

/// An animated WebP's first frame, as viewers show it before it plays: libwebp's animation decoder
/// composes it on the canvas (a frame may cover only part of it), RGBA with the background
/// transparent, flattened here onto black.
package enum WebPAnimation {
    /// The largest canvas decoded: the decoder holds two RGBA canvases (the frame and the one
    /// before it), 256 MB at this size, within the 400 MB any single input may take; a canvas
    /// can claim 16383×16383 (1 GB each) in a few bytes.
    package static let maximumPixels = 32 * 1024 * 1024

    package static func firstFrame(_ webp: [UInt8]) throws(VidorientError) -> Picture {
        if let reason = OpenedLibrary.webp.failure { throw VidorientError(reason) }
        if let reason = OpenedLibrary.webpdemux.failure { throw VidorientError(reason) }
        var options = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInitInternal(&options, WEBP_DEMUX_ABI_VERSION) != 0 else {
            throw VidorientError("libwebpdemux version mismatch")
        }
        options.color_mode = MODE_RGBA
        options.use_threads = 0
        return try webp.withUnsafeBufferPointer { bytes in
            Result { () throws(VidorientError) -> Picture in
                var data = WebPData(bytes: bytes.baseAddress, size: bytes.count)
                guard let decoder = WebPAnimDecoderNewInternal(&data, &options, WEBP_DEMUX_ABI_VERSION) else {
                    throw VidorientError("libwebp could not read the animation")
                }
                defer { WebPAnimDecoderDelete(decoder) }
                var info = WebPAnimInfo()
                guard WebPAnimDecoderGetInfo(decoder, &info) != 0, info.canvas_width > 0, info.canvas_height > 0 else {
                    throw VidorientError("libwebp could not read the animation")
                }
                let width = Int(info.canvas_width), height = Int(info.canvas_height)
                // The decoder has allocated nothing for the canvas yet: that is the first frame's work.
                guard width * height <= maximumPixels else {
                    throw .unsupported(
                        "the animated webp claims a \(width)x\(height) canvas, more than the \(maximumPixels) pixels decoded"
                    )
                }
                var rgba: UnsafeMutablePointer<UInt8>?
                var timestamp: Int32 = 0
                guard info.frame_count > 0, WebPAnimDecoderGetNext(decoder, &rgba, &timestamp) != 0, let rgba else {
                    throw VidorientError("libwebp could not decode the animation's first frame")
                }
                let pixels = [UInt8](unsafeUninitializedCapacity: width * height * 3) { rgb, written in
                    for pixel in 0..<(width * height) {
                        let alpha = UInt32(rgba[4 * pixel + 3])
                        for channel in 0..<3 {
                            rgb[3 * pixel + channel] = UInt8((UInt32(rgba[4 * pixel + channel]) * alpha + 127) / 255)
                        }
                    }
                    written = width * height * 3
                }
                return Picture(width: width, height: height, pixels: pixels)
            }
        }.get()
    }
}
