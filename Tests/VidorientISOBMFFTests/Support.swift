import Foundation
import Testing

/// The generated media and what `TestMedia/manifest.json` says each file is, from how it was built.
enum TestMedia {
    struct Entry: Decodable, Sendable, CustomTestStringConvertible {
        var name = ""
        let container: String?
        let videoCodec: String?
        let storedWidth: Int?
        let storedHeight: Int?
        let exifOrientation: Int?
        let orientationSource: String?
        let matrixInt32: [Int32]?
        let faststart: Bool?
        let bad: Bool
        /// Set for photos; those without a decoder matrix are the photo readers' cases (VidorientPhotoTests).
        let photoFormat: String?
        var testDescription: String { name }
        var path: String { TestMedia.path(name) }
        /// An MP4, MOV or M4A: a file the box reader must read.
        var isISO: Bool { !bad && ["mp4", "mov", "m4a"].contains(container ?? "") }

        enum CodingKeys: String, CodingKey {
            case container, videoCodec = "video_codec", storedWidth = "stored_width", storedHeight = "stored_height"
            case exifOrientation = "exif_orientation", orientationSource = "orientation_source"
            case matrixInt32 = "matrix_int32", faststart, bad, photoFormat = "photo_format"
        }
    }

    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("TestMedia")

    static func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    static let entries: [Entry] = {
        guard let data = try? Data(contentsOf: folder.appendingPathComponent("manifest.json")),
            let decoded = try? JSONDecoder().decode([String: Entry].self, from: data)
        else { return [] }
        return decoded.filter { $0.value.photoFormat == nil || $0.value.matrixInt32 != nil }.map { name, entry in
            var entry = entry
            entry.name = name
            return entry
        }.sorted { $0.name < $1.name }
    }()

    static var iso: [Entry] { entries.filter(\.isISO) }
    /// The bad MP4s; the bad HEIF files have their own tests.
    static var bad: [Entry] { entries.filter { $0.bad && $0.name.hasSuffix(".mp4") } }
    static func entry(_ name: String) -> Entry? { entries.first { $0.name == name } }
}

/// Real phone files beside the project (`../shared/media`); tests using them skip when it is absent.
enum SharedMedia {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/media")

    static func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    static var isPresent: Bool { FileManager.default.fileExists(atPath: path("README.md")) }
}

/// The truth about matrices, written out again here rather than taken from the code under test:
/// the linear part of each EXIF orientation (TestMedia/tkhd.py's table) and Apple's translation.
enum Truth {
    static let linear: [Int: (a: Int32, b: Int32, c: Int32, d: Int32)] = [
        1: (1, 0, 0, 1), 2: (-1, 0, 0, 1), 3: (-1, 0, 0, -1), 4: (1, 0, 0, -1),
        5: (0, 1, 1, 0), 6: (0, 1, -1, 0), 7: (0, -1, -1, 0), 8: (0, -1, 1, 0),
    ]

    /// The 9 int32 of orientation `n` for a picture stored `width`×`height` (tkhd width and height).
    static func matrix(_ n: Int, width: Int32, height: Int32) -> [Int32] {
        let (a, b, c, d) = linear[n]!
        let tx = (a < 0 ? width : 0) + (c < 0 ? height : 0)
        let ty = (b < 0 ? width : 0) + (d < 0 ? height : 0)
        return [a << 16, b << 16, 0, c << 16, d << 16, 0, tx << 16, ty << 16, 1 << 30]
    }

    /// What exiftool prints for `-Rotation -n`: the angle of the matrix's first row, in
    /// [0, 360), blind to mirroring (Image::ExifTool::QuickTime CalcRotation).
    static func exiftoolRotation(_ m: [Int32]) -> Double {
        var angle = atan2(Double(m[1]), Double(m[0])) * 180 / 3.14159
        if angle < 0 { angle += 360 }
        return (angle * 1000 + 0.5).rounded(.down) / 1000
    }
}

/// Runs a tool and returns its exit status and standard output.
func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, stdout: Data, stderr: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [tool] + arguments
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, outData, String(decoding: errData, as: UTF8.self))
}

func isInstalled(_ tool: String) -> Bool {
    (try? run("sh", ["-c", "command -v \(tool)"]).status) == 0
}

/// The video stream's display matrix as ffprobe prints it (side data), or nil when it prints
/// none, which FFmpeg 5.1 does for the identity.
func ffprobeDisplayMatrix(_ path: String) throws -> [Int32]? {
    let result = try run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_streams", "-of", "json", path])
    guard result.status == 0 else { throw ToolError(message: "ffprobe failed on \(path): \(result.stderr)") }
    let json = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
    let stream = (json?["streams"] as? [[String: Any]])?.first
    let sideData = stream?["side_data_list"] as? [[String: Any]] ?? []
    guard let text = sideData.first(where: { $0["side_data_type"] as? String == "Display Matrix" })?["displaymatrix"] as? String
    else { return nil }
    // "\n00000000:            0       65536           0\n00000001: ..." : three rows after a label.
    return text.split(separator: "\n").flatMap { row in row.split(separator: " ").dropFirst().compactMap { Int32($0) } }
}

struct ToolError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// A fresh folder under the temporary directory, removed by `remove()`.
struct TemporaryFolder {
    let url: URL

    init(_ label: String) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "vidorient-\(label)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Copies a file in and returns the copy's path.
    func copy(_ source: String, as name: String) throws -> String {
        let destination = path(name)
        try FileManager.default.copyItem(atPath: source, toPath: destination)
        return destination
    }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// Offsets at which two equally long byte arrays differ.
func differingOffsets(_ lhs: [UInt8], _ rhs: [UInt8]) -> [Int] {
    zip(lhs, rhs).enumerated().compactMap { $0.element.0 != $0.element.1 ? $0.offset : nil }
}

func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }
