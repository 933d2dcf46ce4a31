import Foundation

/// The truth about matrices, written out again here rather than taken from the code under test:
/// the linear part of each EXIF orientation (TestMedia/tkhd.py's table) and Apple's translation.
public enum Truth {
    public static let linear: [Int: (a: Int32, b: Int32, c: Int32, d: Int32)] = [
        1: (1, 0, 0, 1), 2: (-1, 0, 0, 1), 3: (-1, 0, 0, -1), 4: (1, 0, 0, -1),
        5: (0, 1, 1, 0), 6: (0, 1, -1, 0), 7: (0, -1, -1, 0), 8: (0, -1, 1, 0),
    ]

    /// The 9 int32 of orientation `n` for a picture stored `width`×`height` (tkhd width and height).
    public static func matrix(_ n: Int, width: Int32, height: Int32) -> [Int32] {
        let (a, b, c, d) = linear[n]!
        let tx = (a < 0 ? width : 0) + (c < 0 ? height : 0)
        let ty = (b < 0 ? width : 0) + (d < 0 ? height : 0)
        return [a << 16, b << 16, 0, c << 16, d << 16, 0, tx << 16, ty << 16, 1 << 30]
    }

    /// What exiftool prints for `-Rotation -n`: the angle of the matrix's first row, in
    /// [0, 360), blind to mirroring (Image::ExifTool::QuickTime CalcRotation).
    public static func exiftoolRotation(_ m: [Int32]) -> Double {
        var angle = atan2(Double(m[1]), Double(m[0])) * 180 / 3.14159
        if angle < 0 { angle += 360 }
        return (angle * 1000 + 0.5).rounded(.down) / 1000
    }
}

/// The video stream's display matrix as ffprobe prints it (side data), or nil when it prints
/// none, which FFmpeg 5.1 does for the identity.
public func ffprobeDisplayMatrix(_ path: String) throws -> [Int32]? {
    let result = try run("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_streams", "-of", "json", path])
    guard result.status == 0 else { throw ToolError(message: "ffprobe failed on \(path): \(result.stderr)") }
    let json = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
    let stream = (json?["streams"] as? [[String: Any]])?.first
    let sideData = stream?["side_data_list"] as? [[String: Any]] ?? []
    guard
        let text = sideData.first(where: { $0["side_data_type"] as? String == "Display Matrix" })?["displaymatrix"]
            as? String
    else { return nil }
    // "\n00000000:            0       65536           0\n00000001: ..." : three rows after a label.
    return text.split(separator: "\n").flatMap { row in row.split(separator: " ").dropFirst().compactMap { Int32($0) } }
}

/// Offsets at which two equally long byte arrays differ.
public func differingOffsets(_ lhs: [UInt8], _ rhs: [UInt8]) -> [Int] {
    zip(lhs, rhs).enumerated().compactMap { $0.element.0 != $0.element.1 ? $0.offset : nil }
}

public func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

/// Copies a movie into a fragmented MP4 (`moof`s, an empty `moov`) with ffmpeg; its exit status.
public func writeFragmented(_ source: String, to output: String) throws -> Int32 {
    try run(
        "ffmpeg",
        ["-nostdin", "-v", "error", "-i", source, "-c", "copy", "-movflags", "frag_keyframe+empty_moov", output]
    ).status
}
