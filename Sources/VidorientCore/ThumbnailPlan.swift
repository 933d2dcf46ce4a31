/// What a thumbnail should show: which frame, at what size, oriented how. Pure decisions;
/// `VidorientFFmpeg.Thumbnailer` carries them out.
public struct ThumbnailRequest: Sendable, Hashable {
    /// When in the clip: nil for a representative frame.
    public var at: TimePoint?
    /// Decode to the exact time instead of the keyframe at or before it.
    public var exact: Bool
    /// Fit inside this box (either side may be nil), keeping the displayed aspect ratio.
    public var width: Int?
    public var height: Int?
    /// Render the stored pixels, ignoring the orientation.
    public var asStored: Bool
    /// With neither `width` nor `height`: the longest displayed side at most this, never
    /// enlarged (the `thumbnail` command's default, 320); nil for the displayed size.
    public var largestSide: Int?

    /// By default: a representative frame at the displayed size, upright.
    public init(
        at: TimePoint? = nil, exact: Bool = false, width: Int? = nil, height: Int? = nil, asStored: Bool = false,
        largestSide: Int? = nil
    ) {
        self.at = at
        self.exact = exact
        self.width = width
        self.height = height
        self.asStored = asStored
        self.largestSide = largestSide
    }
}

/// A moment in a clip: seconds from the start, or a fraction of the duration.
public enum TimePoint: Sendable, Hashable, CustomStringConvertible {
    case seconds(Double)
    case fraction(Double)

    /// The latest time accepted, in seconds (about 277 hours): far beyond any clip, and small
    /// enough that every stream's time base turns it into a timestamp without overflow.
    public static let maximumSeconds = 1_000_000.0

    /// `12.5`, `01:02:03.250`, `2:03` or `10%`; nil otherwise, and nil for a negative time or one
    /// after `maximumSeconds`.
    public init?(parsing text: String) {
        let text = text.trimmingSpaces
        if text.hasSuffix("%") {
            guard let percent = Double(text.dropLast()), (0...100).contains(percent) else { return nil }
            self = .fraction(percent / 100)
            return
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var seconds = 0.0
        for (index, part) in parts.enumerated() {
            guard let value = Double(part), value >= 0, value.isFinite else { return nil }
            // Minutes and seconds fields after the first must be below 60.
            if index > 0 && value >= 60 { return nil }
            seconds = seconds * 60 + value
        }
        guard seconds <= TimePoint.maximumSeconds else { return nil }
        self = .seconds(seconds)
    }

    /// Seconds into a clip of `duration` seconds (unknown duration: a fraction means the start).
    public func seconds(in duration: Double?) -> Double {
        switch self {
        case .seconds(let value): value
        case .fraction(let value): (duration ?? 0) * value
        }
    }

    public var description: String {
        switch self {
        case .seconds(let value): "\(value)s"
        case .fraction(let value): "\(value * 100)%"
        }
    }
}

/// How the displayed picture is made from a decoded frame: scale the stored pixels (the sample
/// aspect ratio and the requested size together, in one resampling), then move every pixel
/// exactly for the orientation. Orientation commutes with axis-aligned scaling, so this is the
/// same picture as "aspect ratio, then orientation, then scaling", with one resampling only.
///
/// The size rule, which every frame source obeys because it is decided here (docs/thumbnail.md):
/// - without a requested size, the picture with its sample aspect ratio applied is scaled down,
///   when it must be, so that its longest side is no longer than the stored frame's longest side.
///   A sample aspect ratio of 100:1 is a claim in the file, and must not make a 1920x1080 clip
///   a 192,000-pixel-wide picture;
/// - whatever was asked, neither the scaled frame nor the finished picture may have a side above
///   `maximumSide` or more than `maximumPixels` pixels. Beyond that the geometry is refused.
public struct ThumbnailGeometry: Sendable, Hashable {
    /// The longest side of any picture made, in pixels (also the largest `--width`).
    public static let maximumSide = 16384
    /// The most pixels in any picture made: 2^27, 384 MiB as RGB24.
    public static let maximumPixels = 1 << 27

    /// A picture beyond `maximumSide` or `maximumPixels`, with its size, for the error line.
    public struct TooLarge: Error, Sendable, Hashable, CustomStringConvertible {
        public let width: Double
        public let height: Double

        public init(width: Double, height: Double) {
            self.width = width
            self.height = height
        }

        public var description: String {
            "the picture would be \(TooLarge.whole(width))x\(TooLarge.whole(height)) pixels, beyond the limit of "
                + "\(ThumbnailGeometry.maximumSide) a side and \(ThumbnailGeometry.maximumPixels) pixels in all"
        }

        static func whole(_ value: Double) -> String {
            value.isFinite && value < 1e15 ? String(Int(value.rounded())) : "an unbounded number of"
        }
    }

    /// Size to scale the stored frame to, before orienting.
    public let scaledWidth: Int
    public let scaledHeight: Int
    /// Size of the finished picture.
    public let outputWidth: Int
    public let outputHeight: Int
    public let orientation: Orientation?
    /// Clockwise degrees for an angle that is not one of the eight (rendered by resampling).
    public let oddAngle: Double?
    public let mirrored: Bool

    /// - Parameters:
    ///   - storedWidth, storedHeight: the decoded frame.
    ///   - sampleAspectRatio: pixel width over height.
    ///   - video: the orientation `inspect` decided; nil or `asStored` renders the pixels as stored.
    /// - Throws: `TooLarge` when the picture would break the size rule above.
    public init(
        storedWidth: Int, storedHeight: Int, sampleAspectRatio: Double, video: VideoReport?, request: ThumbnailRequest
    ) throws(TooLarge) {
        var orientation: Orientation? = nil
        var oddAngle: Double? = nil
        var mirrored = false
        if !request.asStored, let video, video.matrixValidity == .valid {
            if let exif = video.exifOrientation {
                orientation = Orientation(exif: exif)
            } else if let rotation = video.rotation {
                oddAngle = rotation
                mirrored = video.mirrored ?? false
            }
        }
        try self.init(
            storedWidth: storedWidth, storedHeight: storedHeight, sampleAspectRatio: sampleAspectRatio,
            orientation: orientation, oddAngle: oddAngle, mirrored: mirrored, request: request)
    }

    /// A photo's geometry: square pixels, and one of the eight orientations (nil or `asStored`:
    /// the pixels as stored).
    public init(storedWidth: Int, storedHeight: Int, orientation: Orientation?, request: ThumbnailRequest)
        throws(TooLarge)
    {
        try self.init(
            storedWidth: storedWidth, storedHeight: storedHeight, sampleAspectRatio: 1,
            orientation: request.asStored ? nil : orientation, oddAngle: nil, mirrored: false, request: request)
    }

    init(
        storedWidth: Int, storedHeight: Int, sampleAspectRatio: Double, orientation: Orientation?, oddAngle: Double?,
        mirrored: Bool, request: ThumbnailRequest
    ) throws(TooLarge) {
        let sampleAspectRatio = sampleAspectRatio.isFinite && sampleAspectRatio > 0 ? sampleAspectRatio : 1
        let stretchedWidth = Double(storedWidth) * sampleAspectRatio
        let stretchedHeight = Double(storedHeight)
        // The displayed size before any requested scaling.
        var shownWidth = stretchedWidth, shownHeight = stretchedHeight
        if let orientation, orientation.swapsDimensions { swap(&shownWidth, &shownHeight) }
        if let oddAngle {
            let r = oddAngle * Double.pi / 180
            let (c, s) = (abs(cos(r)), abs(sin(r)))
            (shownWidth, shownHeight) = (
                stretchedWidth * c + stretchedHeight * s, stretchedWidth * s + stretchedHeight * c
            )
        }
        var factor = 1.0
        switch (request.width, request.height) {
        case (let width?, let height?): factor = min(Double(width) / shownWidth, Double(height) / shownHeight)
        case (let width?, nil): factor = Double(width) / shownWidth
        case (nil, let height?): factor = Double(height) / shownHeight
        case (nil, nil):
            // A claimed aspect ratio may stretch the picture, but never past the stored frame's
            // longest side.
            let longestStored = Double(max(storedWidth, storedHeight, 1))
            factor = min(1, longestStored / max(stretchedWidth, stretchedHeight))
            if let largest = request.largestSide, largest > 0 {
                factor = min(factor, Double(largest) / max(shownWidth, shownHeight, 1))
            }
        }
        for (width, height) in [
            (stretchedWidth * factor, stretchedHeight * factor), (shownWidth * factor, shownHeight * factor),
        ] {
            let side = Double(ThumbnailGeometry.maximumSide)
            guard width.isFinite, height.isFinite, width.rounded() <= side, height.rounded() <= side,
                max(1, width.rounded()) * max(1, height.rounded()) <= Double(ThumbnailGeometry.maximumPixels)
            else { throw TooLarge(width: width, height: height) }
        }
        let scaledStretchedWidth = max(1, Int((stretchedWidth * factor).rounded()))
        let scaledStretchedHeight = max(1, Int((stretchedHeight * factor).rounded()))
        scaledWidth = scaledStretchedWidth
        scaledHeight = scaledStretchedHeight
        if let orientation {
            (outputWidth, outputHeight) = orientation.displaySize(
                width: scaledStretchedWidth, height: scaledStretchedHeight)
        } else if oddAngle != nil {
            (outputWidth, outputHeight) = (
                max(1, Int((shownWidth * factor).rounded())), max(1, Int((shownHeight * factor).rounded()))
            )
        } else {
            (outputWidth, outputHeight) = (scaledStretchedWidth, scaledStretchedHeight)
        }
        self.orientation = orientation
        self.oddAngle = oddAngle
        self.mirrored = mirrored
    }

    /// Turns the scaled stored frame into the displayed picture.
    public func orient(_ scaled: Picture) -> Picture {
        if let orientation { return scaled.oriented(orientation) }
        if let oddAngle { return scaled.rotated(clockwise: oddAngle, mirrored: mirrored) }
        return scaled
    }
}

/// Which moments to try for a representative frame: 10% in (ffmpegthumbnailer's habit) first,
/// then a few nearby ones in case that frame is black or flat.
public enum RepresentativeFrame {
    public static let candidateFractions: [Double] = [0.10, 0.15, 0.20, 0.30, 0.40, 0.50]

    /// The times to try, in order, in a clip of `duration` seconds: one per candidate fraction,
    /// but without `exact` only the first of those that start from the same keyframe
    /// (`keyframe(t)`: the keyframe a grab at `t` decodes, nil when unknown), since the others
    /// would decode the same frame again. A dark 1.2 s clip with a keyframe a second decoded its
    /// first keyframe six times to judge it once.
    public static func candidateTimes(duration: Double, exact: Bool, keyframe: (Double) -> Int64?) -> [Double] {
        var seen: Set<Int64> = []
        return candidateFractions.map { duration * $0 }.filter { time in
            guard !exact, let key = keyframe(time) else { return true }
            return seen.insert(key).inserted
        }
    }

    /// A frame too dark, too bright or too uniform to tell anything about the clip.
    public static func isFlat(_ picture: Picture) -> Bool {
        let stats = picture.lumaStatistics
        return stats.deviation < 6 || stats.mean < 12 || stats.mean > 245
    }

    /// A frame of one colour, near enough: nothing in it at all (a flat frame that is not uniform is
    /// dark or bright, as a page of sparse text on white is).
    public static func isUniform(_ picture: Picture) -> Bool { picture.lumaStatistics.deviation < 6 }
}
