public import VidorientCore
public import VidorientIO
public import VidorientISOBMFF

extension MatrixFix {
    /// Reads the file at `path`, plans the change and writes it in `mode`, unless `dryRun`.
    /// Refuses, having changed nothing, what cannot be read, planned (see `init`) or written: a
    /// read-only file, a folder where no temporary file can be made, an unusable `-o` path.
    /// A file already as asked is left untouched (except that a copy is still written).
    ///
    /// Unless `dryRun`, the file is locked (`FileLock`) for the whole run; a caller that checks
    /// the result under the lock takes it itself and passes it as `lock`.
    ///
    /// `alsoCheck` reads the written file back a second way (`FixBatch`: `inspect`'s reading,
    /// `FixIntent.checkShown`), after the box structure's check, once, before anything is
    /// reported: in place before the flush (while the disk writes), on a replacement's copy
    /// before the rename (after it, the same bytes get the box check alone). When it throws, the
    /// old bytes are put back (in place) or the original is left as it was.
    public static func fix(
        path: String, change: OrientationChange, resetMovieMatrix: Bool = false, mode: FileWriteMode = .replace,
        dryRun: Bool = false, preserveModificationTime: Bool = false, lock: FileLock? = nil,
        alsoCheck: ((String) throws(VidorientError) -> Void)? = nil
    ) throws(ISOBMFFError) -> FixResult {
        try fix(
            path: path, change: change, resetMovieMatrix: resetMovieMatrix, mode: mode, dryRun: dryRun,
            preserveModificationTime: preserveModificationTime, lock: lock, movie: nil, alsoCheck: alsoCheck)
    }

    /// `fix`, planned from `movie` when the caller parsed the structure already, under the same
    /// lock (`FixBatch`: the inspection's), so that the `moov` is parsed once.
    package static func fix(
        path: String, change: OrientationChange, resetMovieMatrix: Bool = false, mode: FileWriteMode = .replace,
        dryRun: Bool = false, preserveModificationTime: Bool = false, lock: FileLock? = nil,
        movie parsed: MovieStructure?, alsoCheck: ((String) throws(VidorientError) -> Void)? = nil
    ) throws(ISOBMFFError) -> FixResult {
        // Before the first read, which may move the access time.
        let times = preserveModificationTime && !dryRun ? try FileTimes(path: path) : nil
        var held = lock
        if !dryRun && held == nil { held = try FileLock(path: path) }
        defer { withExtendedLifetime(held) {} }
        let input = try FileBytes(path: path)
        // The structure read under the same lock by the caller's inspection, else read here:
        // through a read-ahead window, as every other reading of the boxes (one `pread` for the
        // headers at the start and one for a `moov` at the end, not one for each box header).
        let movie: MovieStructure
        if let parsed { movie = parsed } else { movie = try MovieStructure(ReadAheadBytes(input)) }
        let plan = try MatrixFix(movie, change: change, resetMovieMatrix: resetMovieMatrix)
        let status = try input.status()
        try EditWriter.check(path: path, status: status, mode: mode, inPlaceAvailable: true)

        var result = FixResult(path: path, plan: plan, movie: movie, mode: mode, dryRun: dryRun)
        guard !dryRun else { return result }
        let expected = plan.expectedStructure(from: movie)
        var alsoChecked = false
        let outcome = try EditWriter.write(
            plan.edit, path: path, mode: mode, preservingTimes: times, lock: held
        ) { written in
            // The whole structure, new matrices included, must be exactly the planned one.
            guard try MovieStructure(path: written) == expected else {
                throw ISOBMFFError(.io, "its matrices or boxes are not the planned ones")
            }
            // The first read-back only: a replacement's renamed copy holds the bytes already read.
            if !alsoChecked {
                alsoChecked = true
                try alsoCheck?(written)
            }
        }
        result.writtenPath = outcome.writtenPath
        result.bytesWritten = outcome.bytesWritten
        result.verified = outcome.writtenPath != nil
        return result
    }
}
