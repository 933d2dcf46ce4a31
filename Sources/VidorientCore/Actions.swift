extension MediaReport {
    /// Fills in each finding's suggested action: a command line where one fixes it. Fixes are
    /// suggested only for MP4/QuickTime files, the only ones `vidorient fix` rewrites. Then each
    /// finding's machine-readable fix (`suggestedFix`), where there is exactly one safe answer.
    mutating func suggestActions() {
        defer { suggestFixes() }
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
        let compare = MediaReport.compareCommand(path)
        for index in findings.indices where findings[index].action == nil {
            let fix: (Int?) -> String? = { orientation in
                guard fixable else { return nil }
                return orientation.map { "vidorient fix \(file) --orientation \($0)" }
                    ?? "vidorient fix \(file) --reset"
            }
            switch findings[index].kind {
            case .mirrored?:
                findings[index].action = fix(unmirrored).map { "if the mirror is unintended: \($0)" } ?? compare
            case .oddAngle?:
                findings[index].action = fix(nearest).map { "to snap to the nearest right angle: \($0)" } ?? compare
            case .matrixScale?, .matrixShear?, .matrixProjective?:
                findings[index].action = fix(current ?? nearest)
            case .matrixInvalid?:
                findings[index].action = fix(nil)
            case .orientationConflict?, .sidecarConflict?:
                findings[index].action = "check which is right: \(compare)"
            case .pixelsAlreadyRotated?:
                findings[index].action =
                    "if \(compare) shows the stored pixels upright: vidorient fix \(file) --orientation 1"
            case .codecOrientation?:
                findings[index].action = fix(current).map { "to make container-only players agree: \($0)" }
            case .exifInvalid?:
                // vidorient's own fix, to what the file shows now: the suggested fix, for a person.
                findings[index].action = "vidorient fix \(file) --orientation \(photo?.exifOrientation ?? 1)"
            case .movieMatrix?:
                findings[index].action =
                    fixable ? "vidorient fix \(file) --orientation \(current ?? 1) --reset-movie-matrix" : nil
            default:
                break
            }
        }
    }

    /// The fixes `fix --from-audit` may apply without asking: each keeps the picture as it is
    /// shown now and changes only a tag or a matrix, so undo is exact. A matrix that scales,
    /// shears or has perspective terms, but whose turn is one of the eight, gets that turn's clean
    /// matrix; a movie matrix moves into the track's (`--reset-movie-matrix`); an EXIF orientation
    /// outside 1-8, which is read as 1, becomes 1. Not suggested: a mirror or an odd angle (was it
    /// meant?), a conflict (which statement is right?), a singular matrix (what was meant?), a
    /// codec-only orientation (a container matrix beside the SEI makes pipelines that apply both
    /// turn twice), or pixels already turned (only a look tells).
    mutating func suggestFixes() {
        let videoFixable = MediaFormat.movieContainerNames.contains(format.name) && photo == nil
        let shown = photo?.exifOrientation ?? video?.exifOrientation
        for index in findings.indices {
            switch findings[index].kind {
            case .matrixScale?, .matrixShear?, .matrixProjective?:
                guard videoFixable, let shown else { continue }
                findings[index].suggestedFix = SuggestedFix(orientation: shown)
            case .movieMatrix?:
                guard videoFixable, let shown else { continue }
                findings[index].suggestedFix = SuggestedFix(orientation: shown, resetMovieMatrix: true)
            case .exifInvalid?:
                guard photo != nil, let shown else { continue }
                findings[index].suggestedFix = SuggestedFix(orientation: shown)
            default:
                continue
            }
        }
    }

    /// A finding's `suggested_fix` as the command that applies it (`vidorient fix FILE
    /// --orientation N [--reset-movie-matrix]`, the path quoted once); nil when it has none:
    /// `--exec`'s `$2`.
    public static func fixCommand(_ finding: Finding, path: String) -> String? {
        finding.suggestedFix.map {
            "vidorient fix \(shellQuoted(path)) --orientation \($0.orientation)"
                + ($0.resetMovieMatrix ? " --reset-movie-matrix" : "")
        }
    }

    /// The command that shows a file as stored beside as displayed, for a person to judge. Its
    /// picture is named after the file (`IMG_1-check.png`), so that following the suggestions of
    /// several files does not overwrite one picture (issue 24).
    public static func compareCommand(_ path: String) -> String {
        var name = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
        if let dot = name.lastIndex(of: "."), dot > name.startIndex { name = String(name[..<dot]) }
        return "vidorient thumbnail \(shellQuoted(path)) --compare -o \(shellQuoted(name + "-check.png"))"
    }

    /// The path as one POSIX shell word: the one place a command shown anywhere (the human report,
    /// JSON, JSONL, CSV, the HTML page) quotes a path, once. A name that is not UTF-8 text is
    /// written `$'…'` with `\xHH` for its bytes (bash, zsh, ksh and POSIX.1-2024 sh), so the
    /// command names the file; a name that starts with `-` gets `./`, so that it is not an option.
    public static func shellQuoted(_ path: String) -> String {
        if path.hasPrefix("-") { return shellQuoted("./" + path) }
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
        return safe && !path.isEmpty
            ? path : "'" + path.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }
}
