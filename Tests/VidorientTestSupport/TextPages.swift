import Foundation

/// Pages of text for the content verdict's text signal, drawn when a test runs: FFmpeg's
/// `drawtext` writes the first lines of Debian's copy of the GPL-3 in DejaVu Serif, black on
/// white, and turns the pixels as asked. Real letters in a real font, as a scanned page or a
/// screenshot has them; nothing is stored in the repository. Tesseract's orientation data is
/// `.ci/setup`'s (tesseract-ocr-osd); tests that need it skip cleanly where it is absent.
public enum TextPages {
    static let licence = "/usr/share/common-licenses/GPL-3"
    static let font = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"
    /// Where the engine looks for osd.traineddata first on Debian and Ubuntu (ContentEngine.cpp).
    static let orientationData = "/usr/share/tesseract-ocr/5/tessdata/osd.traineddata"
    /// The English data Tesseract's recogniser reads words with, beside it.
    public static let englishData = "/usr/share/tesseract-ocr/5/tessdata/eng.traineddata"

    public static var isPresent: Bool {
        [licence, font, orientationData].allSatisfy { FileManager.default.fileExists(atPath: $0) }
            && isInstalled("ffmpeg")
    }

    /// Whether Tesseract's recogniser can read a drawn page's words too.
    public static var recognisesWords: Bool { isPresent && FileManager.default.fileExists(atPath: englishData) }

    /// The `transpose` filters that turn a picture k quarter turns clockwise.
    static func turn(_ quarterTurns: Int) -> String {
        ["null", "transpose=clock", "hflip,vflip", "transpose=cclock"][((quarterTurns % 4) + 4) % 4]
    }

    /// A page of 1240x1754 (A4 at 150 dpi), turned `quarterTurns` clockwise, written to `path`
    /// (PNG or JPEG, by its extension): full of text, or with only its first `lines` (a page so
    /// white that the thumbnail's test calls it flat); in DejaVu Serif, or in capitals of DejaVu Sans.
    public static func page(
        _ path: String, turned quarterTurns: Int = 0, lines: Int? = nil, capitals: Bool = false
    ) throws {
        var text = licence
        var font = font
        if lines != nil || capitals {
            text = path + ".txt"
            let all = try String(contentsOfFile: licence, encoding: .utf8)
                .split(separator: "\n", omittingEmptySubsequences: false)
            let kept = all.prefix(lines ?? all.count).joined(separator: "\n")
            try (capitals ? kept.uppercased() : kept).write(toFile: text, atomically: true, encoding: .utf8)
        }
        if capitals { font = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf" }
        let (status, _, stderr) = try run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=white:s=1240x1754", "-frames:v", "1", "-vf",
                "drawtext=fontfile=\(font):textfile=\(text):expansion=none:fontcolor=black:fontsize=22:"
                    + "x=60:y=60:line_spacing=10,\(turn(quarterTurns))",
                path,
            ])
        guard status == 0 else { throw ToolError(message: "ffmpeg could not draw a page: \(stderr)") }
    }

    /// A screen recording of the same page scrolling slowly: 2 s at 10 frames a second in a
    /// 1280x720 window, turned `quarterTurns` clockwise, H.264 in MP4, no display matrix.
    public static func recording(_ path: String, turned quarterTurns: Int) throws {
        let (status, _, stderr) = try run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=white:s=1280x720:r=10:d=2", "-vf",
                "drawtext=fontfile=\(font):textfile=\(licence):expansion=none:fontcolor=black:fontsize=22:"
                    + "x=60:y=40-t*20:line_spacing=10,\(turn(quarterTurns)),format=yuv420p",
                "-c:v", "libx264", "-g", "5", path,
            ])
        guard status == 0 else { throw ToolError(message: "ffmpeg could not record a page: \(stderr)") }
    }
}
