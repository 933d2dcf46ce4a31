/// The report as a person reads it: aligned labels, the verdict first, evidence after.
public struct ReportText: Sendable {
    public let report: MediaReport
    public let painter: TextPainter

    public init(report: MediaReport, painter: TextPainter) {
        self.report = report
        self.painter = painter
    }

    public var text: String {
        var block = TextBlock(report.path, painter: painter, labelWidth: 12)
        if let photo = report.photo {
            photoRows(photo, into: &block)
        } else if let video = report.video {
            block.row("orientation", orientation(video))
            if let width = video.displayWidth, let height = video.displayHeight {
                block.row("displayed", "\(width)x\(height) \(video.layout?.rawValue ?? "")")
            }
            let stored = "\(video.codedWidth.map(String.init) ?? "?")x\(video.codedHeight.map(String.init) ?? "?")"
            let sar = video.sampleAspectRatio.map { $0 == "1:1" ? "" : ", sample aspect \($0)" } ?? ""
            block.row("stored", "\(stored)\(sar), stream \(video.index) (\(video.codec ?? "unknown codec"))")
            block.row("matrix", DisplayMatrix.text(video.matrix))
            block.row("decided by", decidedBy(video))
            if let camera = video.camera {
                block.row("camera", "\(camera.rawValue) (\(video.cameraEvidence ?? "no evidence"))")
            }
            block.row(
                "ffprobe",
                video.ffprobeRotation.map { "rotation \($0) (counter-clockwise, blind to mirroring)" } ?? "no rotation")
        } else {
            block.row("orientation", "no video stream")
        }
        let format = report.format
        if report.photo == nil {
            var container = format.longName ?? format.name
            if let duration = format.duration { container += ", \(fixed(duration, 3)) s" }
            if let size = format.size { container += ", \(size) bytes" }
            block.row("container", container)
            for (label, value) in format.captureFacts { block.row(label, value) }
        }
        if let location = format.location ?? report.photo?.location {
            block.row(
                "location",
                "\(fixed(location.latitude, 5)), \(fixed(location.longitude, 5))"
                    + (location.altitude.map { ", \(fixed($0, 1)) m" } ?? ""))
        }
        for stream in report.streams { block.row("stream \(stream.index)", stream.summary.escapingControlCharacters) }
        if let content = report.content { block.row("content", content.line) }
        for finding in report.findings {
            let style: TextPainter.Style =
                finding.severity == .error ? .red : (finding.severity == .warning ? .yellow : .cyan)
            block.row(
                finding.severity.rawValue, "\(finding.code): \(finding.message.escapingControlCharacters)", style: style
            )
        }
        return block.text
    }

    /// A photo: the verdict, the sizes, what decided, every other statement, then the camera facts.
    private func photoRows(_ photo: PhotoReport, into block: inout TextBlock) {
        block.row("orientation", painter.paint(photo.orientation.phrase, .green))
        if let width = photo.displayWidth, let height = photo.displayHeight {
            block.row("displayed", "\(width)x\(height) \(photo.layout?.rawValue ?? "")")
        }
        let stored = "\(photo.storedWidth.map(String.init) ?? "?")x\(photo.storedHeight.map(String.init) ?? "?")"
        var coding = [photo.formatDetail ?? photo.format]
        if let codec = photo.codec, !coding[0].contains(codec) { coding.append(codec) }
        block.row("stored", "\(stored), \(coding.joined(separator: ", "))")
        let decided: String =
            switch photo.orientationSource {
            case .heif: "HEIF irot/imir"
            case .exif: "EXIF Orientation"
            case .xmp: "XMP tiff:Orientation"
            case .none: "nothing: no source rotates or mirrors"
            }
        block.row("decided by", decided + (photo.sources.first.map { " (\($0.location))" } ?? ""))
        for source in photo.sources.dropFirst() {
            let value = source.value.map { "\($0)" } ?? "?"
            block.row("also", "\(source.source.rawValue) \(value) at \(source.location)")
        }
        if let camera = photo.camera {
            block.row("camera", "\(camera.rawValue) (\(photo.cameraEvidence ?? "no evidence"))")
        }
        let device = [photo.make, photo.model].compactMap { $0 }.joined(separator: " ")
        if !device.isEmpty { block.row("device", device) }
        if let lens = photo.lensModel { block.row("lens", lens) }
        // ISO 8601, as a video's (issue 24: EXIF's `2024:05:06 07:08:09` beside a video's ISO date).
        if let date = photo.captureDate { block.row("taken", date) }
        for preview in photo.previews {
            let size = preview.width.flatMap { w in preview.height.map { "\(w)x\($0)" } } ?? "size unknown"
            block.row("preview", "\(preview.codec) \(size) (\(preview.location))")
        }
        if !photo.auxiliary.isEmpty { block.row("auxiliary", photo.auxiliary.joined(separator: ", ")) }
        if let motion = photo.motionVideo {
            block.row(
                "motion video", "\(orientation(motion)), \(motion.displayWidth ?? 0)x\(motion.displayHeight ?? 0)")
        }
        if let size = report.format.size { block.row("file", "\(size) bytes") }
    }

    private func orientation(_ video: VideoReport) -> String {
        guard let rotation = video.rotation else { return painter.paint("unknown (invalid matrix)", .red) }
        return painter.paint(Orientation.phrase(rotation: rotation, mirrored: video.mirrored == true), .green)
    }

    private func decidedBy(_ video: VideoReport) -> String {
        switch video.orientationSource {
        case .container: "container display matrix (tkhd)"
        case .sei: "H.264/HEVC display-orientation SEI"
        case .exif: "EXIF Orientation"
        case .none: "nothing: no source carries an orientation"
        }
    }

    private func fixed(_ value: Double, _ digits: Int) -> String { value.text(decimals: digits) }
}
