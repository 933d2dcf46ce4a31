package import VidorientCore
import VidorientIO
import VidorientISOBMFF

/// An XMP sidecar beside a photo: darktable writes `name.ext.xmp`; Lightroom, Capture One and
/// digiKam (by default) write `name.xmp`. Editors keep the orientation a person chose there
/// without touching the photo.
package enum Sidecar {
    /// The names looked for, in order: `IMG_1.CR2.xmp`, `IMG_1.CR2.XMP`, `IMG_1.xmp`, `IMG_1.XMP`.
    package static func candidates(forPhotoAt path: String) -> [String] {
        var names = [path + ".xmp", path + ".XMP"]
        let slash = path.lastIndex(of: "/")
        if let dot = path.lastIndex(of: "."), slash.map({ dot > path.index(after: $0) }) ?? (dot > path.startIndex) {
            let stem = path[..<dot]
            names += [stem + ".xmp", stem + ".XMP"]
        }
        return names
    }

    /// The first sidecar that exists and states a `tiff:Orientation`, as a `.sidecar` statement
    /// located by the sidecar's file name; nil when there is none.
    package static func statement(forPhotoAt path: String) -> OrientationStatement? {
        for candidate in candidates(forPhotoAt: path) {
            // Absent is fine: a sidecar that cannot be read states nothing; the photo's own tags decide.
            guard let bytes = try? FileBytes.readAll(candidate, limit: Int64(XMPOrientation.maximumLength)),
                let value = XMPOrientation.value(in: bytes)
            else { continue }
            let name = candidate.split(separator: "/").last.map(String.init) ?? candidate
            return OrientationStatement(kind: .sidecar, location: name, rawValue: value)
        }
        return nil
    }
}
