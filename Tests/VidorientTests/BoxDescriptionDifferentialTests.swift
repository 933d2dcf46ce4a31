import Foundation
import Testing
import Vidorient
import VidorientCore
import VidorientISOBMFF
import VidorientTestSupport

/// The box layer's description of an MP4/MOV/M4A/3GP (`MovieDescription`, no FFmpeg) against
/// FFmpeg's (`Prober.probe`), key by key, on every such file in TestMedia/ and ../shared/media/
/// and on tiny files made here by each encoder the local ffmpeg has. Any difference fails unless
/// `allowed` below names the key and says why FFmpeg's value is not the one to match.
@Suite struct BoxDescriptionDifferentialTests {
    /// One difference the test accepts, and why.
    struct Allowance {
        /// A key path such as `format.ffmpeg_demuxer` or `streams.1.tags.timecode`; a `*` stands
        /// for one path component.
        var key: String
        var reason: String

        func matches(_ path: String) -> Bool {
            let pattern = key.split(separator: ".")
            let parts = path.split(separator: ".")
            return pattern.count == parts.count && zip(pattern, parts).allSatisfy { $0 == "*" || $0 == $1 }
        }
    }

    static let allowed: [Allowance] = [
        Allowance(key: "format.ffmpeg_demuxer", reason: "FFmpeg-only by definition: null when FFmpeg was not consulted")
    ]

    /// A file made by the local ffmpeg: its name (extension included) and the arguments between
    /// `ffmpeg -y` and the output path. `refused` names what the box layer must refuse (and leave
    /// to FFmpeg) instead of describing.
    struct Recipe: Sendable, CustomTestStringConvertible {
        var name: String
        var encoder: String?
        var arguments: [String]
        var refused = false
        var testDescription: String { name }
    }

    static let video = ["-f", "lavfi", "-i", "testsrc=size=16x16:rate=10:duration=0.3"]
    static let audio = ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=0.1"]

    static let recipes: [Recipe] = [
        Recipe(name: "h264.mp4", encoder: "libx264", arguments: video + ["-c:v", "libx264", "-bf", "0"]),
        Recipe(name: "h264-bframes.mp4", encoder: "libx264", arguments: video + ["-c:v", "libx264"]),
        Recipe(
            name: "h264-10bit-422.mov", encoder: "libx264",
            arguments: video + ["-c:v", "libx264", "-bf", "0", "-pix_fmt", "yuv422p10le"]),
        Recipe(
            name: "h264-tagged.mp4", encoder: "libx264",
            arguments: video + audio + [
                "-c:v", "libx264", "-bf", "0", "-c:a", "aac", "-metadata", "title=Box test", "-metadata",
                "creation_time=2021-02-03T04:05:06Z", "-metadata:s:a:0", "language=fra", "-metadata:s:v:0", "rotate=90",
                "-vf", "setsar=4/3", "-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709",
            ]),
        Recipe(
            name: "h264-aac.mov", encoder: "libx264",
            arguments: video + audio + [
                "-c:v", "libx264", "-bf", "0", "-c:a", "aac", "-metadata", "title=Box test", "-metadata",
                "creation_time=2021-02-03T04:05:06Z", "-metadata:s:a:0", "language=eng",
            ]),
        Recipe(
            name: "h264-aac.3gp", encoder: "libx264",
            arguments: video + audio + ["-c:v", "libx264", "-bf", "0", "-c:a", "aac", "-ac", "1"]),
        Recipe(
            name: "hevc.mp4", encoder: "libx265",
            arguments: video + ["-c:v", "libx265", "-bf", "0", "-tag:v", "hvc1", "-x265-params", "log-level=error"]),
        Recipe(
            name: "hevc-hdr10.mp4", encoder: "libx265",
            arguments: video + [
                "-c:v", "libx265", "-bf", "0", "-pix_fmt", "yuv420p10le", "-color_primaries", "bt2020", "-color_trc",
                "smpte2084", "-colorspace", "bt2020nc", "-color_range", "tv", "-x265-params",
                "log-level=error:hdr10=1:colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc:master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1):max-cll=1000,400",
            ]),
        Recipe(
            name: "hevc-hlg.mov", encoder: "libx265",
            arguments: video + [
                "-c:v", "libx265", "-bf", "0", "-pix_fmt", "yuv420p10le", "-color_primaries", "bt2020", "-color_trc",
                "arib-std-b67", "-colorspace", "bt2020nc", "-x265-params", "log-level=error",
            ]),
        Recipe(
            name: "av1.mp4", encoder: "libaom-av1",
            arguments: video + ["-c:v", "libaom-av1", "-cpu-used", "8", "-threads", "1"]),
        Recipe(
            name: "vp9.mp4", encoder: "libvpx-vp9", arguments: video + ["-c:v", "libvpx-vp9", "-deadline", "realtime"]),
        Recipe(name: "mpeg4.mp4", encoder: "mpeg4", arguments: video + ["-c:v", "mpeg4"]),
        Recipe(name: "mjpeg.mov", encoder: "mjpeg", arguments: video + ["-c:v", "mjpeg"], refused: true),
        Recipe(
            name: "hevc-rgb.mp4", encoder: "libx265",
            arguments: [
                "-f", "lavfi", "-i", "testsrc=size=16x16:rate=10:duration=0.3", "-c:v", "libx265", "-x265-params",
                "log-level=error",
            ],
            refused: true),
        Recipe(name: "aac.m4a", encoder: "aac", arguments: audio + ["-c:a", "aac", "-metadata", "artist=Someone"]),
        Recipe(name: "ac3.mp4", encoder: "ac3", arguments: audio + ["-c:a", "ac3"]),
        Recipe(name: "eac3.mp4", encoder: "eac3", arguments: audio + ["-c:a", "eac3"]),
        Recipe(name: "alac.m4a", encoder: "alac", arguments: audio + ["-c:a", "alac"]),
        Recipe(name: "flac.mp4", encoder: "flac", arguments: audio + ["-c:a", "flac", "-strict", "-2"]),
        Recipe(name: "opus.mp4", encoder: "libopus", arguments: audio + ["-c:a", "libopus"]),
        Recipe(name: "pcm.mov", encoder: "pcm_s16le", arguments: audio + ["-c:a", "pcm_s16le"]),
        Recipe(name: "mp3.mp4", encoder: "libmp3lame", arguments: audio + ["-c:a", "libmp3lame"]),
    ]

    static let encoders: Set<String> = {
        let listing = (try? run(["ffmpeg", "-hide_banner", "-encoders"])) ?? ""
        return Set(
            listing.split(separator: "\n").compactMap { line in
                let words = line.split(separator: " ")
                return words.count >= 2 ? String(words[1]) : nil
            })
    }()

    static let workDirectory: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("vidorient-differential-\(getpid())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    @discardableResult
    static func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw CocoaError(
                .fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "\(arguments.joined(separator: " ")): \(text)"]
            )
        }
        return text
    }

    /// Every MP4/MOV/M4A/3GP of TestMedia/ and ../shared/media/ (the bad ones aside).
    static let foundFiles: [String] = {
        let isISO = { (name: String) in
            ["mp4", "mov", "m4a", "3gp", "m4v"].contains((name as NSString).pathExtension.lowercased())
        }
        var paths = TestMedia.good.filter { isISO($0.name) }.map(\.path)
        if let shared = SharedMedia.existingPath("README.md").map({ ($0 as NSString).deletingLastPathComponent }),
            let names = try? FileManager.default.contentsOfDirectory(atPath: shared)
        {
            paths += names.filter(isISO).sorted().map { "\(shared)/\($0)" }
        }
        return paths
    }()

    /// Files found that the box layer leaves to FFmpeg, and why.
    static let refusedFound: [String: String] = [
        "cover-art.m4a":
            "cover art: FFmpeg makes an attached-picture stream of the `covr` item and decodes it for its size"
    ]

    @Test func thereAreFilesToCompare() {
        #expect(Self.foundFiles.count >= 20)
        #expect(Self.encoders.contains("libx264"), "the local ffmpeg has no libx264: the generated set is thin")
    }

    @Test(arguments: foundFiles)
    func boxLayerAgreesWithFFmpegOnFoundFiles(path: String) throws {
        let name = (path as NSString).lastPathComponent
        try compare(path: path, refused: Self.refusedFound[name] != nil)
    }

    @Test(arguments: recipes)
    func boxLayerAgreesWithFFmpegOnGeneratedFiles(recipe: Recipe) throws {
        if let encoder = recipe.encoder, !Self.encoders.contains(encoder) { return }
        let path = Self.workDirectory.appendingPathComponent(recipe.name).path
        // 4:2:0 unless the recipe says otherwise (testsrc is RGB, which encoders keep as 4:4:4).
        let chroma = recipe.arguments.contains("-pix_fmt") || recipe.refused ? [] : ["-pix_fmt", "yuv420p"]
        let video = recipe.arguments.contains("testsrc=size=16x16:rate=10:duration=0.3") ? chroma : []
        try Self.run(["ffmpeg", "-nostdin", "-v", "error", "-y"] + recipe.arguments + video + [path])
        defer { try? FileManager.default.removeItem(atPath: path) }
        try compare(path: path, refused: recipe.refused)
    }

    func compare(path: String, refused: Bool) throws {
        let viaFFmpeg = MediaReport(probe: try Prober().probe(path))
        let described = Result { () throws(ISOBMFFError) in try MovieDescription.probe(path: path) }
        if refused {
            guard case .failure(let error) = described else {
                Issue.record("the box layer described \(path), which it is expected to leave to FFmpeg")
                return
            }
            #expect(error.kind == .unsupported, "\(error)")
            return
        }
        let probe = try described.get()
        let viaBoxes = MediaReport(probe: probe)
        let differences = Self.differences(Self.flatten(viaBoxes), Self.flatten(viaFFmpeg))
            .filter { difference in !Self.allowed.contains { $0.matches(difference.key) } }
        #expect(
            differences.isEmpty,
            "\((path as NSString).lastPathComponent): box layer vs FFmpeg:\n\(differences.map { "  \($0.key): \($0.boxes) vs \($0.ffmpeg)" }.joined(separator: "\n"))"
        )
    }

    static func flatten(_ report: MediaReport) -> [String: String] {
        // The report as `inspect --json` prints it: every key, null when unknown.
        guard let text = try? JSONText(pretty: false).encode(report),
            let object = try? JSONSerialization.jsonObject(with: Data(text.utf8))
        else { return [:] }
        var flat: [String: String] = [:]
        func walk(_ value: Any, _ path: String) {
            if let dictionary = value as? [String: Any] {
                if dictionary.isEmpty { flat[path] = "{}" }
                for (key, inner) in dictionary { walk(inner, path.isEmpty ? key : "\(path).\(key)") }
            } else if let array = value as? [Any] {
                if array.isEmpty { flat[path] = "[]" }
                for (index, inner) in array.enumerated() { walk(inner, "\(path).\(index)") }
            } else if value is NSNull {
                flat[path] = "null"
            } else {
                flat[path] = "\(value)"
            }
        }
        walk(object, "")
        return flat
    }

    static func differences(_ boxes: [String: String], _ ffmpeg: [String: String])
        -> [(key: String, boxes: String, ffmpeg: String)]
    {
        Set(boxes.keys).union(ffmpeg.keys).sorted().compactMap { key in
            let left = boxes[key] ?? "(absent)", right = ffmpeg[key] ?? "(absent)"
            if left == right { return nil }
            if let a = Double(left), let b = Double(right), abs(a - b) <= 1e-9 * max(1, abs(b)) { return nil }
            return (key, left, right)
        }
    }
}
