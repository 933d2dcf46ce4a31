public import Vidorient
public import VidorientCore

/// What a video fix must achieve in `inspect`'s terms. `fix` writes container matrices only; what
/// a file shows is decided by `inspect` from those and from a codec's display-orientation SEI.
/// So the change is planned against `inspect`'s view before anything is written, a target only
/// the SEI could give is refused, and "verified" means `inspect` reads the written file back
/// as showing the target.
public struct FixIntent: Sendable {
    /// How `inspect` reads a file: `Prober().inspectOrientation` by default (FFmpeg only where it
    /// could see more than the boxes).
    public typealias Inspection = @Sendable (String) throws(InputError) -> InspectedFile

    /// The change to plan: a relative turn of a picture that the SEI orients becomes an absolute
    /// orientation, since the container matrices alone do not say how it is shown.
    public let change: OrientationChange
    /// What the first video track must show afterwards; nil when `inspect` cannot tell (the plan
    /// then stands on the box structure's check alone).
    public let target: Orientation?
    /// What `inspect` shows now; nil when it cannot tell.
    public let shown: Orientation?
    /// Why `inspect` could not read the file, when it could not: the SEI was then not checked and
    /// the result is verified by its boxes alone (a warning on the result says so).
    public let inspectionFailure: VidorientError?
    /// The reading planned against (nil when `inspect` could not read the file): its movie
    /// structure is the one the fix plans its splices from.
    public let inspected: InspectedFile?
    let inspect: Inspection

    /// Reads `file` as `inspect` does and plans `change` against what it shows. Refuses
    /// (`.unsupported`) a target that only the SEI could give.
    public init(
        file: String, change: OrientationChange,
        inspect: @escaping Inspection = { try Prober().inspection($0, orientationOnly: true) }
    )
        throws(VidorientError)
    {
        self.inspect = inspect
        do throws(InputError) {
            inspected = try inspect(file)
            inspectionFailure = nil
        } catch {
            inspected = nil
            inspectionFailure = error
        }
        let video = inspected?.report.video
        guard let video else {
            (self.change, target, shown) = (change, nil, nil)
            return
        }
        let shown = video.exifOrientation.flatMap(Orientation.init(exif:))
        self.shown = shown
        var change = change
        if video.orientationSource == .sei, case .compose(let turn) = change, let shown {
            change = .set(shown.followed(by: turn))
        }
        switch change {
        case .set(let orientation): target = orientation
        case .compose(let turn): target = shown.map { $0.followed(by: turn) }
        }
        self.change = change
        // An identity container matrix leaves the decision to the SEI, so no matrix shows EXIF 1.
        if target == .up, let sei = video.sources.first(where: { $0.source == .sei }),
            let matrix = DisplayMatrix(sei.matrix), !matrix.isIdentity
        {
            let what = sei.exifOrientation.map { "EXIF \($0)" } ?? "a turn that is not one of the eight"
            throw .unsupported(
                "the video's H.264/HEVC display-orientation SEI shows it as \(what), and with the identity "
                    + "matrix of orientation 1 players obey the SEI; fix changes only container matrices, so it "
                    + "cannot make this file show orientation 1 (re-encode, or remove the SEI with "
                    + "ffmpeg -c copy -bsf:v h264_metadata=display_orientation=remove)")
        }
    }

    /// The warning a result carries when `inspect` could not read the file before the fix.
    public var inspectionWarning: String? {
        inspectionFailure.map {
            "inspect could not read the file (\($0.reason)), so its display-orientation SEI was not checked "
                + "and the result was verified by its boxes alone"
        }
    }

    /// Returns when `inspect` reads `path` back as showing the target (or there is no target);
    /// throws the reason otherwise. The video fix runs it as part of its read-back
    /// (`MatrixFix.fix`'s `alsoCheck`), so a file it refuses is put back or left as it was.
    public func checkShown(_ path: String) throws(VidorientError) {
        guard let target else { return }
        let video: VideoReport?
        do throws(InputError) { video = try inspect(path).report.video } catch {
            throw error.context("inspect could not read it")
        }
        let shown = video?.exifOrientation
        guard shown != target.exif else { return }
        throw .malformed(
            "inspect reads it as \(shown.map { "EXIF \($0)" } ?? "no orientation of the eight"), "
                + "not EXIF \(target.exif)")
    }
}
