extension MediaReport {
    /// Fills in each finding's suggested action: a command line where one fixes it. Fixes are
    /// suggested only for MP4/QuickTime files, the only ones `vidorient fix` rewrites.
    mutating func suggestActions() {
        let fixable = MediaFormat.movieContainerNames.contains(format.name)
        let file = MediaReport.shellQuoted(path)
        let current = video?.exifOrientation
        let unmirrored = video.flatMap { video -> Int? in
            guard let rotation = video.rotation else { return nil }
            let quarter = Int((rotation / 90).rounded()) * 90
            return Orientation(rotation: quarter, mirrored: false)?.exif
        }
        let nearest = video.flatMap { video -> Int? in
            guard let rotation = video.rotation else { return nil }
            return Orientation(rotation: Int((rotation / 90).rounded()) * 90, mirrored: video.mirrored ?? false)?.exif
        }
        let compare = "vidorient thumbnail \(file) --compare -o check.png"
        for index in findings.indices where findings[index].action == nil {
            let fix: (Int?) -> String? = { orientation in
                guard fixable else { return nil }
                return orientation.map { "vidorient fix \(file) --orientation \($0)" } ?? "vidorient fix \(file) --reset"
            }
            switch findings[index].code {
            case "mirrored":
                findings[index].action = fix(unmirrored).map { "if the mirror is unintended: \($0)" } ?? compare
            case "odd-angle":
                findings[index].action = fix(nearest).map { "to snap to the nearest right angle: \($0)" } ?? compare
            case "matrix-scale", "matrix-shear", "matrix-projective":
                findings[index].action = fix(current ?? nearest)
            case "matrix-invalid":
                findings[index].action = fix(nil)
            case "orientation-conflict", "sidecar-conflict":
                findings[index].action = "check which is right: \(compare)"
            case "pixels-already-rotated":
                findings[index].action = "if \(compare) shows the stored pixels upright: exiftool -n -Orientation=1 \(file)"
            case "codec-orientation":
                findings[index].action = fix(current).map { "to make container-only players agree: \($0)" }
            case "exif-invalid":
                findings[index].action = "exiftool -n -Orientation=1 \(file)"
            case "movie-matrix":
                findings[index].action = fixable ? "vidorient fix \(file) --orientation \(current ?? 1) --reset-movie-matrix" : nil
            default:
                break
            }
        }
    }

    /// The path as one POSIX shell word. A name that is not UTF-8 text is written `$'…'` with
    /// `\xHH` for its bytes (bash, zsh, ksh and POSIX.1-2024 sh), so the command names the file.
    static func shellQuoted(_ path: String) -> String {
        if path.hasEscapedPathBytes {
            var word = "$'"
            for byte in path.pathBytes {
                switch byte {
                case UInt8(ascii: "'"), UInt8(ascii: "\\"): word += "\\" + String(UnicodeScalar(byte))
                case 0x20...0x7E: word += String(UnicodeScalar(byte))
                default: word += hexEscape(byte)
                }
            }
            return word + "'"
        }
        let safe = path.allSatisfy { $0.isLetter || $0.isNumber || "/._-+:,@".contains($0) }
        return safe && !path.isEmpty ? path : "'" + path.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }
}
