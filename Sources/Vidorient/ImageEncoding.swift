public import VidorientCore
import VidorientPhotoDecoding

extension ImageFormat {
    /// Encodes `picture` without FFmpeg (JPEG through libjpeg-turbo, PNG through zlib): the same
    /// picture gives the same bytes on every run and machine. `quality` (1–100, higher is better)
    /// applies to JPEG, as libjpeg's.
    public func encode(_ picture: Picture, quality: Int = 90) throws(VidorientError) -> [UInt8] {
        try StillEncoder.encode(picture, as: self, quality: quality)
    }
}
