public import VidorientCore
import VidorientPhoto
import VidorientPhotoDecoding

extension ImageFormat {
    /// Encodes `picture` without FFmpeg: JPEG through libjpeg-turbo (`JPEGEncoder`), PNG through
    /// zlib (`PNGWriter`). The same picture gives the same bytes on every run and machine.
    /// `quality` (1–100, higher is better) applies to JPEG, as libjpeg's.
    public func encode(_ picture: Picture, quality: Int = 90) throws(VidorientError) -> [UInt8] {
        switch self {
        case .jpg: try JPEGEncoder.encode(picture, quality: quality)
        case .png: try PNGWriter.encode(picture)
        }
    }
}
