public import VidorientCore

extension AnyFixResult {
    /// The fix as a person reads it (`vidorient fix`'s output without --json).
    public func text(_ painter: TextPainter) -> String {
        switch self {
        case .video(let result): FixReport(result: result, painter: painter).text
        case .photo(let result): PhotoFixReport(result: result, painter: painter).text
        }
    }
}

/// One photo's fix as a person reads it: the orientation before and after, each place written,
/// then what was written.
struct PhotoFixReport {
    let result: PhotoFixResult
    let painter: TextPainter

    var text: String {
        var block = TextBlock(result.path, painter: painter, labelWidth: 10)
        block.row(result.format, "\(orientation(result.before)) -> \(painter.paint(orientation(result.after), .green))")
        for place in result.places { block.row("changes", place.escapingControlCharacters) }
        block.fixOutcome(
            dryRun: result.dryRun, written: result.writtenPath, verified: result.verified,
            bytesChanged: result.bytesChanged, inserted: Int(max(result.sizeChange, 0)))
        return block.text
    }

    private func orientation(_ state: PhotoFixResult.State) -> String {
        guard let exif = state.exifOrientation, let orientation = Orientation(exif: exif) else {
            return "not one of the eight"
        }
        return orientation.phrase
    }
}

/// One file's fix as a person reads it: each changed matrix before and after, then what was written.
struct FixReport {
    let result: FixResult
    let painter: TextPainter

    var text: String {
        var block = TextBlock(result.path, painter: painter, labelWidth: 20)
        for change in result.changes {
            // Numbered as inspect numbers streams, with the track's own ID (tkhd) beside it.
            let label =
                change.trackID.map { id in change.streamIndex.map { "stream \($0) (track \(id))" } ?? "track \(id)" }
                ?? "movie"
            block.row(label, "\(orientation(change.before)) -> \(painter.paint(orientation(change.after), .green))")
            block.row(
                "matrix", "\(DisplayMatrix.text(change.before.matrix)) -> \(DisplayMatrix.text(change.after.matrix))")
        }
        block.fixOutcome(
            dryRun: result.dryRun, written: result.writtenPath, verified: result.verified,
            bytesChanged: result.bytesChanged, inserted: 0)
        return block.text
    }

    private func orientation(_ state: FixResult.State) -> String {
        if let exif = state.exifOrientation, let orientation = Orientation(exif: exif) {
            return orientation.phrase
        }
        return state.rotation.map { "not one of the eight (rotates \(DisplayMatrix.text([$0]))°)" } ?? "not invertible"
    }

}

extension Undo {
    /// One undone fix as `--undo` prints it: `lib/a.mp4: restored (EXIF 1 -> EXIF 6, 1883 bytes, crc-32 daeda4d0)`.
    public static func line(_ entry: JournalEntry, _ outcome: Outcome) -> String {
        let name = entry.path.escapingControlCharacters
        // Undoing turns the file back: from what the fix made to what it was.
        let turn =
            "\(entry.orientationAfter.map { "EXIF \($0)" } ?? "?") -> \(entry.orientationBefore.map { "EXIF \($0)" } ?? "?")"
        return switch outcome {
        case .restored: "\(name): restored (\(turn), \(entry.before.size) bytes, crc-32 \(entry.before.crc32Hex))"
        case .neverWritten: "\(name): never written (the fix was stopped before it wrote); nothing to undo"
        case .alreadyUndone:
            "\(name): already undone (it is the original: \(entry.before.size) bytes, crc-32 \(entry.before.crc32Hex))"
        case .wouldRestore: "\(name): would restore (\(turn), \(entry.before.size) bytes)"
        }
    }
}

extension TextBlock {
    /// A fix's last row: how many bytes change, and how many of them are inserted.
    mutating func fixOutcome(dryRun: Bool, written: String?, verified: Bool, bytesChanged: Int, inserted: Int) {
        let bytes = "\(bytesChanged) byte\(bytesChanged == 1 ? "" : "s")"
        let added = inserted > 0 ? ", \(inserted) inserted" : ""
        outcome(
            dryRun: dryRun, written: written, verified: verified, would: "\(bytes) would change\(added)",
            done: "\(bytes) changed\(added)")
    }
}
