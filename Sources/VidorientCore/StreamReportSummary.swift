extension StreamReport {
    /// The stream in one line, as `inspect` prints it: `video, h264 (High), 1920x1080, yuv420p,
    /// 29.970 fps`; `audio, aac (LC), 48000 Hz, 2 ch, eng`.
    public var summary: String {
        var parts = [type, codec ?? codecTag.map { "'\($0)'" } ?? "unknown codec"]
        if let profile { parts[1] += " (\(profile))" }
        if let width = codedWidth, let height = codedHeight { parts.append("\(width)x\(height)") }
        if let pixelFormat { parts.append(pixelFormat) }
        if let hdr { parts.append(hdr.uppercased()) }
        if let profile = dolbyVision { parts.append("Dolby Vision \(profile)") }
        if let rate = frameRate { parts.append("\(rate.text(decimals: 3)) fps") }
        if let sampleRate { parts.append("\(sampleRate) Hz") }
        if let channels { parts.append("\(channels) ch") }
        if let language, language != "und" { parts.append(language) }
        if isAttachedPicture { parts.append("cover art") }
        return parts.joined(separator: ", ")
    }
}
