public import VidorientCore
import VidorientFFmpeg
public import VidorientText

/// Upright pictures of videos and photos, with the orientation `inspect` reports: the file is read
/// by `Prober`, and its report's decision is what gets applied (`PictureSource`).
public struct Thumbnailer: Sendable {
    /// What draws captions on contact sheets and comparisons; nil leaves the captions out (the
    /// pictures keep their layout without the text bands).
    public var font: (any TextRenderer)?

    /// A thumbnailer whose captions use `font`: by default the system's sans face
    /// (`FreeTypeFont.system`, DejaVu Sans on Debian), nil when no font is installed.
    public init(font: (any TextRenderer)? = FreeTypeFont.system) {
        self.font = font
    }

    /// Why captions cannot be drawn (no font loads), in one line ending "writing pictures without
    /// captions"; nil when the system's font loads.
    public static var captionFontProblem: String? {
        guard FreeTypeFont.system == nil else { return nil }
        if let reason = FreeTypeFont.unavailable {
            return "captions need FreeType: \(reason): writing pictures without captions"
        }
        if let chosen = getenv("VIDORIENT_FONT"), chosen.pointee != 0 {
            return
                "could not load font '\(String(cString: chosen))' (VIDORIENT_FONT): writing pictures without captions"
        }
        return "no font found for captions (install fonts-dejavu-core, or set VIDORIENT_FONT to a .ttf): "
            + "writing pictures without captions"
    }

    /// One frame, as a viewer shows it.
    public struct Frame: Sendable {
        /// The frame upright: mirrored and turned as `report` decides, scaled to the request.
        public var picture: Picture
        /// The stored pixels at the same scale, before the orientation.
        public var stored: Picture
        /// The frame's time in seconds, as the decoder reports it; nil when it reports none.
        public var time: Double?
        /// The report `Prober` made of the file (`InspectedFile.report`): the orientation applied is its decision.
        public var report: MediaReport
        /// What the decoder said of the data it decoded for this picture (libjpeg's `premature
        /// end of jpeg file`, FFmpeg's damaged packets), as findings; empty when it said nothing.
        public var decoderWarnings: [Finding]

        /// What a viewer of the picture should know: the report's `file-truncated` and
        /// `file-damaged` findings, and the decoder's warnings of a kind the report did not name.
        public var damage: [Finding] { .damage(reported: report.findings, decoder: decoderWarnings) }

        init(picture: Picture, stored: Picture, time: Double?, report: MediaReport, decoderWarnings: [Finding] = []) {
            self.picture = picture
            self.stored = stored
            self.time = time
            self.report = report
            self.decoderWarnings = decoderWarnings
        }

        init(_ frame: VideoFrame, report: MediaReport) {
            self.init(
                picture: frame.picture, stored: frame.stored, time: frame.time, report: report,
                decoderWarnings: frame.warning.map { [Finding.decoderWarning($0, decoder: "ffmpeg")] } ?? [])
        }
    }

    /// The frame `request` asks for; a representative one when it names no time (10% in,
    /// skipping black or flat frames). Throws one `InputError` naming the file and the reason
    /// when it cannot be read or has no picture.
    public func frame(_ path: String, request: ThumbnailRequest) throws(InputError) -> Frame {
        try frame(PictureSource(path, request: request), request: request)
    }

    /// The frame `request` asks for of a file `Prober` has read: shown as its report decides.
    public func frame(of inspected: InspectedFile, request: ThumbnailRequest) throws(InputError) -> Frame {
        try frame(PictureSource(inspected, request: request), request: request)
    }

    func frame(_ source: PictureSource, request: ThumbnailRequest) throws(InputError) -> Frame {
        let session: OpenVideo
        switch source {
        case .photo(let frames): return try frames.frame(request)
        case .video(let video): session = video
        }
        let report = session.report
        let still = session.isStill
        let duration = session.duration
        if let at = request.at {
            return Frame(
                try session.grab(at: still ? 0 : at.seconds(in: duration), exact: request.exact), report: report)
        }
        if still || duration == nil { return Frame(try session.grab(at: 0, exact: false), report: report) }
        // A representative frame: 10% in, unless that one is black or flat and a nearby one is not.
        var best: Frame?
        var bestDeviation = -1.0
        let times = RepresentativeFrame.candidateTimes(duration: duration!, exact: request.exact) {
            session.keyframe(atOrBefore: $0)
        }
        for time in times {
            let frame = Frame(try session.grab(at: time, exact: request.exact), report: report)
            if !RepresentativeFrame.isFlat(frame.picture) { return frame }
            let deviation = frame.picture.lumaStatistics.deviation
            if deviation > bestDeviation { (best, bestDeviation) = (frame, deviation) }
        }
        return best!
    }

    /// `columns`×`rows` evenly spaced frames, each upright at `tileWidth`, under a header with
    /// the file name, duration, displayed size and orientation.
    public func contactSheet(_ path: String, columns: Int, rows: Int, tileWidth: Int, exact: Bool = false)
        throws(InputError) -> Picture
    {
        try contactSheetAndDamage(path, columns: columns, rows: rows, tileWidth: tileWidth, exact: exact).picture
    }

    /// `contactSheet`, with what its frames' report and decoder said of damage (`Frame.damage`).
    /// `note`: what the sheet is not, said on stderr (a photo's sheet is the picture once).
    func contactSheetAndDamage(_ path: String, columns: Int, rows: Int, tileWidth: Int, exact: Bool)
        throws(InputError) -> (picture: Picture, damage: [Finding], note: String?)
    {
        let request = ThumbnailRequest(exact: exact, width: tileWidth, height: tileWidth)
        let session: OpenVideo
        switch try PictureSource(path, request: request) {
        case .photo(let frames):
            // A photo has one picture: shown once, not copied into every tile (issue 29), and said.
            let frame = try frames.frame(request)
            let grid = Picture.grid([frame.picture], columns: 1)
            let note = "a photo has one picture: its contact sheet shows it once, not \(columns)x\(rows)"
            guard let font else { return (grid, frame.damage, note) }
            return (grid.captioned(Thumbnailer.header(frames.report, path: path), renderer: font), frame.damage, note)
        case .video(let video): session = video
        }
        let report = session.report
        let count = max(1, columns * rows)
        let duration = session.duration ?? 0
        var tiles: [Picture] = []
        var warnings: [Finding] = []
        var shownTime: Double?
        for index in 0..<count {
            let time = session.isStill ? 0 : duration * (Double(index) + 0.5) / Double(count)
            var grabbed = try session.grab(at: time, exact: exact)
            // Without `exact` a tile shows the keyframe at or before its time; where that is no later
            // than the frame the tile before showed (a short clip, keyframes far apart), decode on to
            // the tile's time instead, so that no frame is shown twice under two times.
            if !exact, !session.isStill, let keyframe = grabbed.time, let shownTime, keyframe <= shownTime + 1e-6 {
                grabbed = try session.grab(at: time, exact: true)
            }
            shownTime = grabbed.time ?? shownTime
            if warnings.isEmpty, let warning = grabbed.warning {
                warnings.append(Finding.decoderWarning(warning, decoder: "ffmpeg"))
            }
            var tile = grabbed.picture
            if let font {
                // The time in the bottom-left corner, white on a dark box so it reads on any frame.
                let size = tile.width >= 160 ? 13 : 10
                // The time of the frame shown, not the time asked for.
                let label = font.mask(Thumbnailer.timestamp(grabbed.time ?? time), pixelSize: size)
                let box = Picture(
                    width: min(tile.width, label.width + 6), height: label.height + 2, fill: RGB(24, 24, 24))
                tile.paste(box, x: 0, y: tile.height - box.height)
                tile.draw(label, x: 3, y: tile.height - box.height + 1)
            }
            tiles.append(tile)
        }
        let grid = Picture.grid(tiles, columns: columns)
        let damage = [Finding].damage(reported: report.findings, decoder: warnings)
        guard let font else { return (grid, damage, nil) }
        return (grid.captioned(Thumbnailer.header(report, path: path), renderer: font), damage, nil)
    }

    /// Stored and displayed side by side, each labelled: the picture an audit wants.
    public func comparison(_ path: String, request: ThumbnailRequest) throws(InputError) -> Picture {
        try comparison(of: frame(path, request: request))
    }

    /// The comparison of a frame already made.
    func comparison(of frame: Frame) -> Picture {
        let video = frame.report.video
        let stored = ["Stored", "\(frame.stored.width)×\(frame.stored.height)", "as decoded"]
        var shown = ["Displayed", "\(frame.picture.width)×\(frame.picture.height)"]
        if let photo = frame.report.photo {
            shown.append(photo.orientation.phrase)
        } else if let rotation = video?.rotation {
            shown.append(Orientation.phrase(rotation: rotation, mirrored: video?.mirrored == true))
        } else {
            shown.append("as stored")
        }
        guard let font else { return Picture.sideBySide([frame.stored, frame.picture]) }
        let size = min(frame.stored.width, frame.picture.width) >= 120 ? 14 : 11
        return Picture.sideBySide([
            frame.stored.captioned(stored, pixelSize: size, renderer: font),
            frame.picture.captioned(shown, pixelSize: size, renderer: font),
        ])
    }

    static func header(_ report: MediaReport, path: String) -> [String] {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        var second: [String] = []
        if let duration = report.format.duration { second.append(timestamp(duration)) }
        var third: [String] = []
        if let photo = report.photo {
            if let width = photo.displayWidth, let height = photo.displayHeight { second.append("\(width)×\(height)") }
            third.append(photo.orientation.phrase)
        }
        if let video = report.video {
            if let width = video.displayWidth, let height = video.displayHeight { second.append("\(width)×\(height)") }
            if let rotation = video.rotation {
                third.append(Orientation.phrase(rotation: rotation, mirrored: video.mirrored == true))
            }
        }
        return [name, second.joined(separator: " · "), third.joined(separator: " ")]
    }

    static func timestamp(_ seconds: Double) -> String {
        let total = Int(seconds.rounded(.down))
        let millis = Int(((seconds - Double(total)) * 1000).rounded(.down))
        let text = "\(total / 60):" + (total % 60 < 10 ? "0" : "") + "\(total % 60)"
        return text + "." + String(repeating: "0", count: max(0, 3 - String(millis).count)) + "\(millis)"
    }

    static func degrees(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
