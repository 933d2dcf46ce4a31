import CLibHeif
import CLibPNG
import CTurboJPEG
import CWebP

/// The C libraries this target opens on first use, never when the program starts
/// (Sources/CLibraryLoader): libheif, libjpeg-turbo, libpng, libwebp, libwebpdemux. Each way in asks here first.
enum OpenedLibrary {
    case libheif, turbojpeg, libpng, webp, webpdemux

    /// Opens the library once per process; nil when it can be used, else why not:
    /// `libturbojpeg is not installed (libturbojpeg.so.0: cannot open shared object file: ...)`.
    var failure: String? {
        var error = [CChar](repeating: 0, count: 512)
        let status =
            switch self {
            case .libheif: vo_libheif_load(&error, error.count)
            case .turbojpeg: vo_turbojpeg_load(&error, error.count)
            case .libpng: vo_libpng_load(&error, error.count)
            case .webp: vo_webp_load(&error, error.count)
            case .webpdemux: vo_webpdemux_load(&error, error.count)
            }
        guard status != 0 else { return nil }
        return String(cMessage: error)
    }
}
