import CFFmpeg
package import VidorientCore

/// A still picture decoded by FFmpeg (TIFF, and whatever else no photo library of ours decodes:
/// JPEG, PNG and WebP have their own) and scaled in one swscale pass.
package enum FFmpegStill {
    package static func decode(path: String, width: Int, height: Int) throws(InputError) -> Picture {
        let file = try MediaFile(path: path)
        if file.needsStreamInfo {
            do { try file.findStreamInfo() } catch {
                throw InputError(path: path, reason: "could not read the streams: \(error)")
            }
        }
        guard let stream = file.streams.first(where: { $0.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO })
        else { throw InputError(path: path, reason: "no picture in the file") }
        do {
            // A frame over `maximumPixels` is refused by the decoder before it is allocated;
            // PhotoFrames says so first, from the size the photo reader read.
            let decoder = try VideoDecoder(stream: stream, maximumPixels: maximumPixels)
            guard try decoder.decodeFirstFrame(from: file) else {
                throw InputError(path: path, reason: "no frame could be decoded")
            }
            let scaler = try Scaler(frame: decoder.frame, width: width, height: height)
            return scaler.picture(from: decoder.frame)
        } catch let error as InputError {
            throw error
        } catch {
            throw InputError(path: path, reason: "could not decode the picture: \(error)")
        }
    }

    /// The most pixels a still (a TIFF) is decoded at: FFmpeg makes the whole picture
    /// before it is scaled, up to 8 bytes a pixel (16-bit RGBA), so 40 megapixels is 320 MB at
    /// most (a 16-bit RGBA PNG of 47.6 megapixels peaked at 423 MB), within the 400 MB any single
    /// input may take; a 750 KB PNG can claim 16000x16000 (docs/hostile-input.md, "Memory bound").
    package static let maximumPixels = 40_000_000
}
