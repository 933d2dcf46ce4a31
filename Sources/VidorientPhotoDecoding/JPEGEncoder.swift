import CTurboJPEG
package import VidorientCore

/// A picture written as a JPEG without FFmpeg, through libjpeg-turbo: 4:2:0, full-range BT.601 as
/// JFIF defines it, the accurate integer DCT. The same picture gives the same bytes on every run
/// and machine: libjpeg-turbo's SIMD paths for these steps are exact.
package enum JPEGEncoder {
    /// Encodes `picture` at `quality`, libjpeg's scale (1–100, as `cjpeg -quality`).
    package static func encode(_ picture: Picture, quality: Int) throws(VidorientError) -> [UInt8] {
        guard picture.width > 0, picture.height > 0 else {
            throw .unsupported("could not encode jpg: the picture has no pixels")
        }
        if let reason = OpenedLibrary.turbojpeg.failure { throw .io("could not encode jpg: \(reason)") }
        guard let handle = tjInitCompress() else { throw .io("could not encode jpg: could not start libjpeg-turbo") }
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        defer { if let output { tjFree(output) } }
        let result = picture.pixels.withUnsafeBufferPointer {
            tjCompress2(
                handle, $0.baseAddress, Int32(picture.width), Int32(picture.width * 3), Int32(picture.height),
                Int32(TJPF_RGB.rawValue), &output, &size, Int32(TJSAMP_420.rawValue), Int32(max(1, min(100, quality))),
                0)
        }
        guard result == 0, let output else {
            throw .unsupported("could not encode jpg: \(String(cString: tjGetErrorStr2(handle)).lowercased())")
        }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }
}
