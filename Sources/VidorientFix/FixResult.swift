public import VidorientCore
public import VidorientIO
public import VidorientISOBMFF

/// What `fix` did to one file, for people and for `--json` (docs/fix.md lists every key).
public struct FixResult: Sendable, Hashable, Encodable {
    /// One matrix as a person reads it: the orientation it amounts to, and its entries.
    public struct State: Sendable, Hashable, Encodable {
        /// nil when the matrix is not one of the eight.
        public var exifOrientation: Int?
        /// Clockwise degrees after the optional mirror; nil for a matrix that cannot be inverted.
        public var rotation: Double?
        public var mirrored: Bool?
        /// tkhd order `[a, b, u, c, d, v, tx, ty, w]`.
        public var matrix: [Double]

        public init(_ stored: StoredMatrix) {
            let analysis = stored.matrix.analysis
            exifOrientation = analysis.orientation?.exif
            rotation = analysis.rotation
            mirrored = analysis.mirrored
            matrix = stored.matrix.entries
        }

        enum CodingKeys: String, CodingKey {
            case exifOrientation = "exif_orientation", rotation, mirrored, matrix
        }
    }

    /// One matrix the plan set (a track's, or the movie header's when reset).
    public struct MatrixChange: Sendable, Hashable, Encodable {
        /// nil for the movie header (`mvhd`).
        public var trackID: UInt32?
        /// The track's stream, as `inspect` numbers them (from 0); nil for the movie header.
        public var streamIndex: Int?
        /// Absolute file offset of the 36 matrix bytes.
        public var matrixOffset: Int64
        public var before: State
        public var after: State
        public var bytesChanged: Int

        enum CodingKeys: String, CodingKey {
            case trackID = "track_id", streamIndex = "stream_index", matrixOffset = "matrix_offset", before, after
            case bytesChanged = "bytes_changed"
        }
    }

    /// Bumped when a key changes meaning or disappears.
    public static let schemaVersion = 1

    /// The JSON's `schema_version` (the static `schemaVersion`).
    let schema = FixResult.schemaVersion
    @ReportedPath public var path: String
    public var dryRun: Bool
    public var mode: FileWriteMode
    /// Where the fixed file is: the path itself, the `-o` copy, or nil when nothing was written
    /// (a dry run, or a file already as asked).
    @ReportedPath public var writtenPath: String?
    /// The written file was read back and its structure was exactly the one planned.
    public var verified: Bool
    public var bytesChanged: Int
    /// Bytes this run wrote to the disk: the whole file for a copy, the matrices for in-place.
    public var bytesWritten: Int64
    /// The first video track's matrix before and after.
    public var before: State
    public var after: State
    public var movieMatrixBefore: [Double]
    public var movieMatrixAfter: [Double]
    public var changes: [MatrixChange]
    public var warnings: [String]

    init(path: String, plan: MatrixFix, movie: MovieStructure, mode: FileWriteMode, dryRun: Bool) {
        self.path = path
        self.dryRun = dryRun
        self.mode = mode
        writtenPath = nil
        verified = false
        bytesChanged = plan.bytesChanged
        bytesWritten = 0
        changes = plan.patches.map {
            MatrixChange(
                trackID: $0.trackID, streamIndex: $0.streamIndex, matrixOffset: $0.after.offset,
                before: State($0.before), after: State($0.after),
                bytesChanged: $0.changedByteCount)
        }
        // The plan has a patch for every video track, first in file order.
        let first = plan.patches[0]
        before = State(first.before)
        after = State(first.after)
        let movieMatrix = movie.movieHeader.matrix
        movieMatrixBefore = movieMatrix.matrix.entries
        movieMatrixAfter = (plan.patches.first { $0.trackID == nil }?.after ?? movieMatrix).matrix.entries
        warnings = plan.warnings
    }

    enum CodingKeys: String, CodingKey {
        case schema = "schema_version", path, dryRun = "dry_run", mode, writtenPath = "written_path", verified
        case bytesChanged = "bytes_changed", bytesWritten = "bytes_written", before, after
        case movieMatrixBefore = "movie_matrix_before", movieMatrixAfter = "movie_matrix_after", changes, warnings
    }
}
