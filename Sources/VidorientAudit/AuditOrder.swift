import VidorientCore
import VidorientIO

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `audit --sort`: the records held to the end of the run and written in path order, so that two
/// runs write the same text whatever order the workers finished in. Each record's text is kept as
/// its worker rendered it (the chunk's `marks` say where each ends), so memory grows with the
/// output; a stream to a pipe holds nothing back and is not sorted unless asked.
public struct SortedRecords: Sendable {
    /// One record: its path's bytes in `paths`, its text in one of `texts`.
    struct Piece: Sendable {
        let path: Range<Int>
        let text: Int
        let range: Range<Int>
    }

    /// The chunks' texts, copied end to end into blocks of up to `blockSize` that ask for huge pages:
    /// the workers' chunks are then used again, where keeping them made every chunk new memory,
    /// faulted in 4 KiB at a time (a tenth of a warm audit's CPU, and a lock the two workers
    /// shared in the kernel's page allocator).
    private var texts: [[UInt8]] = []
    static let blockSize = 8 << 20
    /// Every record's path, end to end.
    private var paths: [UInt8] = []
    private var pieces: [Piece] = []

    public init() {}

    /// Takes a chunk's records, rendered with marks (`AuditWriter.render(_:into:marked:)`).
    public mutating func add(_ chunk: AuditChunk) {
        guard !chunk.marks.isEmpty else { return }
        if texts.isEmpty || texts[texts.count - 1].count + chunk.text.count > texts[texts.count - 1].capacity {
            // Each block as large as all before it (a small run holds little), up to `blockSize`.
            let held = texts.reduce(0) { $0 + $1.count }
            texts.append(
                SortedRecords.block(of: max(chunk.text.count, min(SortedRecords.blockSize, max(1 << 18, held)))))
        }
        let text = texts.count - 1
        let offset = texts[text].count
        texts[text] += chunk.text
        var start = 0
        for mark in chunk.marks {
            let pathStart = paths.count
            if mark.path.hasEscapedPathBytes { paths += mark.path.pathBytes } else { paths += mark.path.utf8 }
            pieces.append(Piece(path: pathStart..<paths.count, text: text, range: offset + start..<offset + mark.end))
            start = mark.end
        }
    }

    /// An empty block with room for `count` bytes, its memory asked to come in huge pages (where
    /// it is large enough to hold one: `System.preferHugePages`).
    private static func block(of count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            System.preferHugePages(UnsafeMutableRawBufferPointer(buffer))
            initialized = 0
        }
    }

    /// Every record's text in the order of its path's bytes, in blocks of about 64 KiB (for
    /// `AuditWriter.text(of:first:)`, which takes the JSON's first comma off).
    public func write(_ output: ([UInt8]) -> Void) {
        let order = paths.withUnsafeBufferPointer { paths in
            // memcmp: the standard library's comparison of byte arrays cost a tenth of a warm run.
            pieces.sorted { a, b in
                let common = min(a.path.count, b.path.count)
                let compared =
                    common == 0
                    ? 0 : memcmp(paths.baseAddress! + a.path.lowerBound, paths.baseAddress! + b.path.lowerBound, common)
                return compared != 0 ? compared < 0 : a.path.count < b.path.count
            }
        }
        var block: [UInt8] = []
        block.reserveCapacity(1 << 16)
        for piece in order {
            block += texts[piece.text][piece.range]
            if block.count >= 1 << 16 {
                output(block)
                block.removeAll(keepingCapacity: true)
            }
        }
        if !block.isEmpty { output(block) }
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
