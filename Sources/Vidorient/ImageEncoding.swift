public import VidorientCore
import VidorientFFmpeg

extension ImageFormat {
    /// Encodes `picture` with libavcodec's own encoder, bit-exact: the same picture gives the same
    /// bytes on every run and machine. `quality` (1–100, higher is better) applies to JPEG.
    public func encode(_ picture: Picture, quality: Int = 90) throws(VidorientError) -> [UInt8] {
        try StillEncoder.encode(picture, as: self, quality: quality)
    }
}
