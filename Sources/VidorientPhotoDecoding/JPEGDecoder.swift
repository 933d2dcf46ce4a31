import CTurboJPEG
package import VidorientCore

/// JPEG pixels through libjpeg-turbo, shrunk while decoding: the DCT scaling that libvips uses
/// (1/2, 1/4, 1/8, …) picks the smallest scale whose picture still covers what is needed, so a
/// 320-pixel thumbnail of a 12 MP photo decodes an eighth of the pixels.
package enum JPEGDecoder {
    /// Pixels this decoder agrees to produce at most (a JPEG header can claim 65535×65535).
    package static let maximumPixels = 256 * 1024 * 1024

    /// The stored size the header states, without decoding.
    package static func size(of jpeg: [UInt8]) throws(VidorientError) -> (width: Int, height: Int) {
        let handle = try Handle()
        let header = try handle.header(jpeg)
        return (header.width, header.height)
    }

    /// Decodes `jpeg` at the smallest DCT scale whose size is at least `minimumWidth`×`minimumHeight`
    /// (nil: full size). The picture is the stored pixels: no orientation is applied.
    package static func decode(_ jpeg: [UInt8], minimumWidth: Int? = nil, minimumHeight: Int? = nil)
        throws(VidorientError) -> Picture
    {
        try decodeWithWarning(jpeg, minimumWidth: minimumWidth, minimumHeight: minimumHeight).picture
    }

    /// As `decode`, with libjpeg's warning when it gave one (lowercase, as libjpeg words it:
    /// `premature end of jpeg file`, `corrupt jpeg data: 12 extraneous bytes before marker 0xd9`):
    /// the picture is still made, as every viewer shows one, and the warning is for the user.
    package static func decodeWithWarning(_ jpeg: [UInt8], minimumWidth: Int? = nil, minimumHeight: Int? = nil)
        throws(VidorientError) -> (picture: Picture, warning: String?)
    {
        let handle = try Handle()
        let (width, height, colorspace) = try handle.header(jpeg)
        guard width.multipliedReportingOverflow(by: height).partialValue <= maximumPixels else {
            throw .unsupported("the jpeg claims \(width)x\(height) pixels, more than the \(maximumPixels) allowed")
        }
        try jpeg.withUnsafeBytes { JPEGCoefficientBound($0) }?.check(whole: false)
        let factor = scale(
            width: width, height: height, minimumWidth: minimumWidth ?? width, minimumHeight: minimumHeight ?? height)
        let scaledWidth = Int(vo_tj_scaled(Int32(width), factor))
        let scaledHeight = Int(vo_tj_scaled(Int32(height), factor))
        // A CMYK or YCCK file (Photoshop's, a print workflow's) comes out as CMYK, turned into RGB below.
        let cmyk = colorspace == TJCS_CMYK.rawValue || colorspace == TJCS_YCCK.rawValue
        let channels = cmyk ? 4 : 3
        var pixels = [UInt8](repeating: 0, count: scaledWidth * scaledHeight * channels)
        // LIMITSCANS bounds a progressive file's scan count (a denial-of-service vector).
        let flags = TJFLAG_LIMITSCANS | TJFLAG_NOREALLOC
        let result = jpeg.withUnsafeBufferPointer { source in
            pixels.withUnsafeMutableBufferPointer { target in
                tjDecompress2(
                    handle.pointer, source.baseAddress, UInt(source.count), target.baseAddress, Int32(scaledWidth),
                    Int32(scaledWidth * channels), Int32(scaledHeight), Int32((cmyk ? TJPF_CMYK : TJPF_RGB).rawValue),
                    Int32(flags))
            }
        }
        // A warning (a truncated scan, extraneous bytes) still gives a picture, as every viewer shows one.
        if result != 0, tjGetErrorCode(handle.pointer) == TJERR_FATAL.rawValue {
            throw VidorientError(handle.message)
        }
        if cmyk { pixels = rgb(fromInvertedCMYK: pixels) }
        return (Picture(width: scaledWidth, height: scaledHeight, pixels: pixels), result != 0 ? handle.message : nil)
    }

    /// RGB from CMYK as libjpeg gives an Adobe file's: inverted, as Photoshop stores it (255 is no
    /// ink), so each channel is its ink's complement times black's: R = C·K/255. No colour
    /// management (TurboJPEG's own conversion, its `cmyk.h`, is the same formula); what viewers
    /// without a CMS show, and enough for a thumbnail and the content judge.
    static func rgb(fromInvertedCMYK cmyk: [UInt8]) -> [UInt8] {
        let count = cmyk.count / 4
        return [UInt8](unsafeUninitializedCapacity: count * 3) { rgb, written in
            cmyk.withUnsafeBufferPointer { source in
                for pixel in 0..<count {
                    let k = UInt32(source[4 * pixel + 3])
                    for channel in 0..<3 {
                        rgb[3 * pixel + channel] = UInt8((UInt32(source[4 * pixel + channel]) * k + 127) / 255)
                    }
                }
            }
            written = count * 3
        }
    }

    /// The smallest scaling factor libjpeg-turbo offers whose picture covers the minimum size.
    static func scale(width: Int, height: Int, minimumWidth: Int, minimumHeight: Int) -> tjscalingfactor {
        var count: Int32 = 0
        guard let list = tjGetScalingFactors(&count), count > 0 else { return tjscalingfactor(num: 1, denom: 1) }
        var best = tjscalingfactor(num: 1, denom: 1)
        var bestPixels = Int.max
        for index in 0..<Int(count) {
            let factor = list[index]
            // Only reductions: enlarging in the DCT is never cheaper than scaling afterwards.
            guard factor.num <= factor.denom else { continue }
            let w = Int(vo_tj_scaled(Int32(width), factor)), h = Int(vo_tj_scaled(Int32(height), factor))
            if w >= minimumWidth, h >= minimumHeight, w * h < bestPixels { (best, bestPixels) = (factor, w * h) }
        }
        return best
    }

    /// Owns one TurboJPEG decompressor.
    final class Handle {
        let pointer: tjhandle

        init() throws(VidorientError) {
            if let reason = OpenedLibrary.turbojpeg.failure { throw VidorientError(reason) }
            guard let pointer = tjInitDecompress() else { throw VidorientError("could not start libjpeg-turbo") }
            self.pointer = pointer
        }

        deinit { tjDestroy(pointer) }

        var message: String { String(cString: tjGetErrorStr2(pointer)).lowercased() }

        func header(_ jpeg: [UInt8]) throws(VidorientError) -> (width: Int, height: Int, colorspace: Int32) {
            var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
            let result = jpeg.withUnsafeBufferPointer {
                tjDecompressHeader3(pointer, $0.baseAddress, UInt($0.count), &width, &height, &subsampling, &colorspace)
            }
            // A warning (stray bytes between markers, which libjpeg steps over) still gives the header.
            guard result == 0 || tjGetErrorCode(pointer) != TJERR_FATAL.rawValue, width > 0, height > 0 else {
                throw VidorientError(message)
            }
            return (Int(width), Int(height), colorspace)
        }
    }
}
