public import VidorientCore

/// `audit --sort`: the records held to the end of the run and written in path order, so that two
/// runs write the same text whatever order the workers finished in. Each record's text is kept as
/// its worker rendered it (the chunk's `marks` say where each ends), so memory grows with the
/// output; a stream to a pipe holds nothing back and is not sorted unless asked.
public struct SortedRecords: Sendable {
    struct Piece: Sendable {
        let path: [UInt8]
        let text: [UInt8]
    }

    private var pieces: [Piece] = []

    public init() {}

    /// Takes a chunk's records, rendered with marks (`AuditWriter.render(_:into:marked:)`).
    public mutating func add(_ chunk: AuditChunk) {
        var start = 0
        for mark in chunk.marks {
            pieces.append(Piece(path: mark.path.pathBytes, text: Array(chunk.text[start..<mark.end])))
            start = mark.end
        }
    }

    /// Every record's text in the order of its path's bytes, as one chunk (for
    /// `AuditWriter.text(of:first:)`, which takes the JSON's first comma off).
    public func chunk() -> AuditChunk {
        var chunk = AuditChunk()
        for piece in pieces.sorted(by: { $0.path.lexicographicallyPrecedes($1.path) }) { chunk.text += piece.text }
        return chunk
    }

    /// Whether a run is sorted when not told: when standard output is not a pipe or a socket
    /// (a terminal, a file). A pipe's reader (`| fix --from-audit -`, `| jq`) gets each record as
    /// its file finishes.
    public static var sortsByDefault: Bool {
        var status = stat()
        guard fstat(STDOUT_FILENO, &status) == 0 else { return false }
        let type = status.st_mode & S_IFMT
        return type != S_IFIFO && type != S_IFSOCK
    }
}
