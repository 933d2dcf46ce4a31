// upright FILE...: prints which way is up for each video or photo, and writes an upright
// thumbnail of it, at most 320 pixels a side, as NAME.upright.png in the current directory.
import Foundation
import Vidorient

DecoderLog.setVerbose(false)  // FFmpeg's own warnings, off as in the vidorient command
var failed = false
for path in CommandLine.arguments.dropFirst() {
    do {
        // The same report `vidorient inspect --json` prints.
        let report = try Prober().inspect(path)
        guard report.video != nil || report.photo != nil else {
            print("\(path): no picture")
            continue
        }
        // A video's or a photo's decided orientation; nil for a matrix that is not one of the eight.
        let orientation = report.displayOrientation
        print("\(path): \(orientation.map { "EXIF \($0.exif), \($0.summary)" } ?? "not one of the eight")")

        // The frame a viewer shows, already turned and mirrored upright, fitted to 320 pixels.
        let frame = try Thumbnailer().frame(path, request: ThumbnailRequest(width: 320, height: 320))
        let output = URL(fileURLWithPath: path).lastPathComponent + ".upright.png"
        try Data(try ImageFormat.png.encode(frame.picture)).write(to: URL(fileURLWithPath: output))
        print("  wrote \(output) (\(frame.picture.width)x\(frame.picture.height))")
    } catch {
        FileHandle.standardError.write(Data("upright: \(error)\n".utf8))
        failed = true
    }
}
exit(failed ? 2 : 0)
