public import VidorientCore
public import VidorientIO
import VidorientPhoto

extension PhotoTagFix {
    /// Reads the photo at `path`, plans the tag change (`plan`) and writes it with `EditWriter`
    /// in `mode`, unless `dryRun`. The written file is read back by `PhotoReader` and judged by
    /// `PhotoReport`, as `inspect` does: it must show the target, and every orientation
    /// statement in it must say the target. A file already as asked is left untouched (a copy
    /// is still written).
    ///
    /// `change` is `.set` or `.compose` (a turn after what the file shows now, by `PhotoReport`'s
    /// decision). `--in-place` (`mode == .inPlace`) is refused for an edit that inserts bytes.
    /// Unless `dryRun`, the file is locked for the whole run; a caller holding the lock passes it.
    public static func fix(
        path: String, change: OrientationChange, mode: FileWriteMode = .replace, dryRun: Bool = false,
        preserveModificationTime: Bool = false, lock: FileLock? = nil
    ) throws(VidorientError) -> PhotoFixResult {
        // Before the first read, which may move the access time.
        let times = preserveModificationTime && !dryRun ? try FileTimes(path: path) : nil
        var held = lock
        if !dryRun && held == nil { held = try FileLock(path: path) }
        defer { withExtendedLifetime(held) {} }
        let planned = try plan(path: path, change: change, mode: mode)
        guard !dryRun else { return planned.result }
        return try write(planned, mode: mode, preservingTimes: times, lock: held)
    }

    /// Reads the photo at `path` once and plans the tag change (`plan`), refusing what cannot be
    /// read, planned or written in `mode`. Writes nothing; the caller holds the file's lock.
    package static func plan(path: String, change: OrientationChange, mode: FileWriteMode = .replace)
        throws(VidorientError) -> PlannedPhotoFix
    {
        let input = try FileBytes(path: path)
        let format = MediaFormat(
            signature: try input.read(at: 0, count: Int(min(Int64(MediaFormat.signatureLength), input.size))))
        let target: Orientation
        let source = ReadAheadBytes(input)
        switch change {
        case .set(let orientation):
            target = orientation
        case .compose(let turn):
            let evidence = try PhotoReader.read(source, path: path, format: format)
            guard let shown = shown(evidence) else {
                throw .unsupported(
                    "its orientation tag holds a value that is not 1-8, so there is nothing to turn relative to; set an orientation instead"
                )
            }
            target = shown.followed(by: turn)
        }
        // The planners' refusals (`.unsupported`) stay refusals; a damaged file stays `.malformed`.
        let plan = try PhotoTagFix.plan(source, format: format, target: target)
        if case .inPlace = mode, !plan.edit.keepsLength {
            throw .unsupported(
                "this fix must insert \(plan.edit.sizeChange) bytes (\(plan.places.joined(separator: "; "))), which --in-place cannot do; leave out --in-place"
            )
        }
        try EditWriter.checkWritable(path: path, mode: mode)
        return PlannedPhotoFix(
            result: PhotoFixResult(path: path, plan: plan, mode: mode, dryRun: true), target: target, format: format,
            edit: plan.edit)
    }

    /// Writes a planned fix with `EditWriter` in `mode` and reads it back (`checkShows`). The
    /// caller holds the file's lock (`lock`, which the writer keeps) from before the plan.
    package static func write(
        _ planned: PlannedPhotoFix, mode: FileWriteMode = .replace, preservingTimes times: FileTimes? = nil,
        lock: FileLock?
    ) throws(VidorientError) -> PhotoFixResult {
        var result = planned.result
        result.dryRun = false
        let outcome = try EditWriter.write(
            planned.edit, path: result.path, mode: mode, preservingTimes: times, lock: lock
        ) { written in
            try PhotoTagFix.checkShows(planned.target, path: written, format: planned.format)
        }
        result.writtenPath = outcome.writtenPath
        result.bytesWritten = outcome.bytesWritten
        result.verified = outcome.writtenPath != nil
        return result
    }

    /// Reads `path` back as `inspect` does and throws unless it shows `target` with no in-file
    /// statement saying otherwise.
    public static func checkShows(_ target: Orientation, path: String, format: MediaFormat) throws(VidorientError) {
        let evidence = try PhotoReader.read(path: path, format: format)
        let shown = shown(evidence)
        guard shown == target else {
            throw .malformed(
                "it shows \(shown.map { "EXIF \($0.exif)" } ?? "no orientation of the eight"), not EXIF \(target.exif)")
        }
        if let other = evidence.statements.first(where: {
            ($0.kind == .exif || $0.kind == .xmp) && $0.orientation != target
        }) {
            throw .malformed(
                "\(other.location) still says \(other.rawValue.map(String.init) ?? "?"), not \(target.exif)")
        }
    }
}

/// A photo fix planned, not written: the dry run's result, and what `PhotoTagFix.write` needs to
/// write it and read it back. Planning and writing are two calls so that a caller that journals
/// the edit (`FixBatch`) writes exactly the edit it journaled, the file read once.
package struct PlannedPhotoFix: Sendable {
    /// What a dry run reports.
    package let result: PhotoFixResult
    /// What the file must show once written.
    let target: Orientation
    let format: MediaFormat
    let edit: FileEdit
}

/// What `fix` did to one photo, for people and for `--json` (docs/fix.md lists every key).
public struct PhotoFixResult: Sendable, Hashable, Encodable {
    /// An orientation as a person reads it; every field nil when not one of the eight.
    public struct State: Sendable, Hashable, Encodable {
        public var exifOrientation: Int?
        public var rotation: Int?
        public var mirrored: Bool?

        init(_ orientation: Orientation?) {
            exifOrientation = orientation?.exif
            rotation = orientation?.rotation
            mirrored = orientation?.isMirrored
        }

        enum CodingKeys: String, CodingKey { case exifOrientation = "exif_orientation", rotation, mirrored }
    }

    /// One run of bytes the fix changes, against the original file.
    public struct Splice: Sendable, Hashable, Encodable {
        public var offset: Int64
        public var oldLength: Int
        public var newLength: Int
        public var bytesChanged: Int

        enum CodingKeys: String, CodingKey {
            case offset, oldLength = "old_length", newLength = "new_length", bytesChanged = "bytes_changed"
        }
    }

    public static let schemaVersion = 1

    /// The JSON's `schema_version` (the static `schemaVersion`).
    let schema = PhotoFixResult.schemaVersion
    /// `photo`, in the JSON: what tells a photo's result from a video's (`FixResult`) in a batch.
    let kind = "photo"
    @ReportedPath public var path: String
    /// `jpeg`, `png`, `webp`, `tiff`.
    public var format: String
    public var dryRun: Bool
    public var mode: FileWriteMode
    /// Where the fixed file is; nil when nothing was written (a dry run, a file already as asked).
    @ReportedPath public var writtenPath: String?
    /// The written file was read back and shows the target.
    public var verified: Bool
    public var bytesChanged: Int
    /// How much longer the file became (0 when only existing bytes changed).
    public var sizeChange: Int64
    public var bytesWritten: Int64
    public var before: State
    public var after: State
    /// Each place written, for a person.
    public var places: [String]
    public var splices: [Splice]
    /// The file's `file-truncated`/`file-damaged` findings, as `code: message` (issue 24): the tag
    /// is fixed, the picture stays as it is.
    public var warnings: [String]
    /// The plan itself, for a journal: the bytes to write, and (its inverse) to undo.
    public var edit: FileEdit

    init(path: String, plan: OrientationEdit, mode: FileWriteMode, dryRun: Bool) {
        self.path = path
        format = plan.format.description
        self.dryRun = dryRun
        self.mode = mode
        writtenPath = nil
        verified = false
        bytesChanged = plan.edit.bytesChanged
        sizeChange = plan.edit.sizeChange
        bytesWritten = 0
        before = State(plan.before)
        after = State(plan.after)
        places = plan.places
        warnings = plan.damage.map { "\($0.code): \($0.message)" }
        splices = plan.edit.splices.map {
            Splice(offset: $0.offset, oldLength: $0.old.count, newLength: $0.new.count, bytesChanged: $0.bytesChanged)
        }
        edit = plan.edit
    }

    // `edit` is left out: the journal writes it (`JournalEntry`).
    enum CodingKeys: String, CodingKey {
        case schema = "schema_version", path, kind, format, dryRun = "dry_run", mode, writtenPath = "written_path"
        case verified, bytesChanged = "bytes_changed", sizeChange = "size_change", bytesWritten = "bytes_written"
        case before, after, places, splices, warnings
    }
}
