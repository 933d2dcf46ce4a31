import VidorientCore
import VidorientIO

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `audit --sort`: records written in path order (the path's bytes), so that two runs write the
/// same text whatever order the workers finished in. A walked library is written as it goes: each
/// chunk says below which path nothing more will come (`AuditChunk.pathsToCome`, from the walk's
/// units still under way), and every record held below it is written then, so what is held is
/// the records that finished ahead of a slower file, not the library. A list of paths
/// (`--files-from`) can name any path at any time: its records are held to the end (memory about
/// the size of the output). A stream to a pipe holds nothing back and is not sorted unless asked.
public struct SortedRecords: Sendable {
    /// The records held: their texts in blocks used again once written, their paths end to end.
    private var store = Store()
    /// Where the records still held are copied when most of `store` has been written (`compact`).
    private var spare = Store()
    /// The text of what is written next, handed out 64 KiB at a time, or what there is a tenth
    /// of a second after the last (a write per chunk was a write per 60 records of a warm run).
    private var out: [UInt8] = []
    private var lastOutput = 0.0

    public init() {}

    /// Takes a chunk's records, rendered with marks (`AuditWriter.render(_:into:marked:)`), and
    /// writes, in path order, every record held that no record to come can precede.
    public mutating func add(_ chunk: AuditChunk, write output: ([UInt8]) -> Void) {
        // The chunk's records in order, all before any still to come (a worker hands over whole
        // units where it can) and before any held (another worker's, ahead of it): written as
        // they are, with no copy.
        if SortedRecords.isReady(chunk), let last = chunk.marks.last, store.holdsNothing(before: last.path) {
            if !out.isEmpty { flush(output) }
            output(chunk.text)
            lastOutput = MonotonicClock.now
        } else {
            store.add(chunk)
        }
        switch chunk.pathsToCome {
        case .unknown: return
        case .none: write(below: nil, output)
        case .atLeast(let bound): write(below: bound, output)
        }
        if !out.isEmpty && MonotonicClock.now - lastOutput >= 0.1 { flush(output) }
    }

    /// Every record still held, in path order: at the end of the run.
    public mutating func finish(write output: ([UInt8]) -> Void) {
        write(below: nil, output)
        if !out.isEmpty { output(out) }
        out.removeAll(keepingCapacity: true)
    }

    /// Writes the records held whose path precedes `bound` (all of them for nil), in path order,
    /// in blocks of about 64 KiB (for `AuditWriter.text(of:first:)`, which takes the JSON's first
    /// comma off).
    private mutating func write(below bound: [UInt8]?, _ output: ([UInt8]) -> Void) {
        var ready: [Store.Piece] = []
        var held: [Store.Piece] = []
        if let bound {
            for piece in store.pieces {
                if store.path(of: piece, precedes: bound) { ready.append(piece) } else { held.append(piece) }
            }
        } else {
            ready = store.pieces
        }
        guard !ready.isEmpty else { return }
        store.sort(&ready)
        out.reserveCapacity(1 << 16)
        for piece in ready {
            out += store.text(of: piece)
            if out.count >= 1 << 16 { flush(output) }
        }
        compact(keeping: held)
    }

    private mutating func flush(_ output: ([UInt8]) -> Void) {
        output(out)
        out.removeAll(keepingCapacity: true)
        lastOutput = MonotonicClock.now
    }

    /// What is still held, kept: in place when it is most of `store`, else copied into `spare`
    /// (which becomes `store`), so that the blocks are used again and memory follows what is held.
    private mutating func compact(keeping held: [Store.Piece]) {
        guard !held.isEmpty else { return store.reset() }
        let heldBytes = held.reduce(0) { $0 + $1.range.count }
        guard store.bytes > 4 * heldBytes + (1 << 16) else {
            store.pieces = held
            return
        }
        spare.reset()
        for piece in held { spare.add(path: store.path(of: piece), text: store.text(of: piece)) }
        swap(&store, &spare)
        spare.reset()
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

    /// Whether a chunk's records can be written now, as they are: in path order, and every one
    /// before any record still to come.
    static func isReady(_ chunk: AuditChunk) -> Bool {
        guard let last = chunk.marks.last else { return false }
        switch chunk.pathsToCome {
        case .unknown: return false
        case .none: break
        case .atLeast(let bound):
            guard precedes(last.path.pathBytes, bound) else { return false }
        }
        return chunk.marks.indices.dropFirst().allSatisfy { precedes(chunk.marks[$0 - 1].path, chunk.marks[$0].path) }
    }

    /// Whether path bytes `a` come before `b` (`memcmp`, then the shorter first): the one order of
    /// sorted output. The standard library's comparison of byte arrays cost a tenth of a warm run.
    static func precedes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        let common = min(a.count, b.count)
        let compared = common == 0 ? 0 : memcmp(a.baseAddress!, b.baseAddress!, common)
        return compared != 0 ? compared < 0 : a.count < b.count
    }

    /// Whether path `a` comes before `b` in that order, with no copy of a path that is plain text.
    static func precedes(_ a: String, _ b: String) -> Bool {
        if !a.hasEscapedPathBytes && !b.hasEscapedPathBytes,
            let ordered = a.utf8.withContiguousStorageIfAvailable({ a in
                b.utf8.withContiguousStorageIfAvailable { b in precedes(a, b) }
            }), let ordered
        {
            return ordered
        }
        return precedes(a.pathBytes, b.pathBytes)
    }

    static func precedes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.withUnsafeBufferPointer { a in b.withUnsafeBufferPointer { b in precedes(a, b) } }
    }

    /// Records' texts and paths, end to end.
    private struct Store: Sendable {
        /// One record: its path's bytes in `paths`, its text in `blocks[block]`.
        struct Piece: Sendable {
            let path: Range<Int>
            let block: Int
            let range: Range<Int>
        }

        /// The chunks' texts, copied end to end into blocks of up to `blockSize` that ask for huge
        /// pages: the workers' chunks are then used again, where keeping them made every chunk new
        /// memory, faulted in 4 KiB at a time (a tenth of a warm audit's CPU, and a lock the two
        /// workers shared in the kernel's page allocator). Emptied, not freed, by `reset`.
        var blocks: [[UInt8]] = []
        /// The block being filled.
        var current = 0
        var paths: [UInt8] = []
        var pieces: [Piece] = []
        static let blockSize = 8 << 20

        /// Bytes of text in the blocks, written or not.
        var bytes: Int { blocks.reduce(0) { $0 + $1.count } }

        mutating func add(_ chunk: AuditChunk) {
            guard !chunk.marks.isEmpty else { return }
            let block = room(for: chunk.text.count)
            let offset = blocks[block].count
            blocks[block] += chunk.text
            var start = 0
            for mark in chunk.marks {
                let pathStart = paths.count
                if mark.path.hasEscapedPathBytes { paths += mark.path.pathBytes } else { paths += mark.path.utf8 }
                pieces.append(
                    Piece(path: pathStart..<paths.count, block: block, range: offset + start..<offset + mark.end))
                start = mark.end
            }
        }

        mutating func add(path: ArraySlice<UInt8>, text: ArraySlice<UInt8>) {
            let block = room(for: text.count)
            let offset = blocks[block].count
            blocks[block] += text
            let pathStart = paths.count
            paths += path
            pieces.append(Piece(path: pathStart..<paths.count, block: block, range: offset..<offset + text.count))
        }

        /// The block with room for `count` more bytes: the current one, the next one emptied by
        /// `reset`, or a new one as large as all before it (a small run holds little), up to
        /// `blockSize`.
        private mutating func room(for count: Int) -> Int {
            while current < blocks.count && blocks[current].count + count > blocks[current].capacity { current += 1 }
            if current == blocks.count {
                blocks.append(Store.block(of: max(count, min(Store.blockSize, max(1 << 18, bytes)))))
            }
            return current
        }

        /// An empty block with room for `count` bytes, its memory asked to come in huge pages (where
        /// it is large enough to hold one: `System.preferHugePages`).
        private static func block(of count: Int) -> [UInt8] {
            [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                System.preferHugePages(UnsafeMutableRawBufferPointer(buffer))
                initialized = 0
            }
        }

        /// Nothing held; the blocks kept for what comes next.
        mutating func reset() {
            for index in blocks.indices { blocks[index].removeAll(keepingCapacity: true) }
            current = 0
            paths.removeAll(keepingCapacity: true)
            pieces.removeAll(keepingCapacity: true)
        }

        /// Whether every record held comes after `path`.
        func holdsNothing(before path: String) -> Bool {
            guard !pieces.isEmpty else { return true }
            let bytes = path.pathBytes
            return paths.withUnsafeBufferPointer { paths in
                bytes.withUnsafeBufferPointer { bytes in
                    pieces.allSatisfy { SortedRecords.precedes(bytes, UnsafeBufferPointer(rebasing: paths[$0.path])) }
                }
            }
        }

        func path(of piece: Piece) -> ArraySlice<UInt8> { paths[piece.path] }
        func text(of piece: Piece) -> ArraySlice<UInt8> { blocks[piece.block][piece.range] }

        func path(of piece: Piece, precedes bound: [UInt8]) -> Bool {
            paths.withUnsafeBufferPointer { paths in
                bound.withUnsafeBufferPointer { bound in
                    SortedRecords.precedes(UnsafeBufferPointer(rebasing: paths[piece.path]), bound)
                }
            }
        }

        func sort(_ pieces: inout [Piece]) {
            paths.withUnsafeBufferPointer { paths in
                pieces.sort { a, b in
                    SortedRecords.precedes(
                        UnsafeBufferPointer(rebasing: paths[a.path]), UnsafeBufferPointer(rebasing: paths[b.path]))
                }
            }
        }
    }
}

/// Values, each with path bytes, taken least path first (`SortedRecords.precedes`): a binary heap.
struct PathHeap<Value> {
    private var items: [(path: [UInt8], value: Value)] = []

    var isEmpty: Bool { items.isEmpty }
    /// The least path held.
    var least: [UInt8]? { items.first?.path }

    mutating func push(_ path: [UInt8], _ value: Value) {
        items.append((path, value))
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard SortedRecords.precedes(items[child].path, items[parent].path) else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    mutating func popLeast() -> (path: [UInt8], value: Value)? {
        guard !items.isEmpty else { return nil }
        items.swapAt(0, items.count - 1)
        let least = items.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            guard left < items.count else { break }
            let right = left + 1
            let next = right < items.count && SortedRecords.precedes(items[right].path, items[left].path) ? right : left
            guard SortedRecords.precedes(items[next].path, items[parent].path) else { break }
            items.swapAt(next, parent)
            parent = next
        }
        return least
    }
}

/// The least path each of a walk's units still under way can give a record (`WalkQueue.Unit.lowerBound`),
/// as many times as units give it: no record to come precedes the least of them (`lowest`).
/// A folder's units are added before the folder's own is removed, so the least never passes a
/// path still to come.
struct PathBounds {
    /// A bound removed stays in the heap until it comes to the top.
    private var heap = PathHeap<Void>()
    private var removed: [Key: Int] = [:]

    /// A bound hashed as one run of bytes (an array of bytes hashes each on its own).
    private struct Key: Hashable {
        let bytes: [UInt8]
        func hash(into hasher: inout Hasher) { bytes.withUnsafeBytes { hasher.combine(bytes: $0) } }
    }

    mutating func add(_ bound: [UInt8]) { heap.push(bound, ()) }

    mutating func remove(_ bound: [UInt8]) {
        removed[Key(bytes: bound), default: 0] += 1
        while let top = heap.least.map(Key.init), let count = removed[top] {
            removed[top] = count == 1 ? nil : count - 1
            _ = heap.popLeast()
        }
    }

    /// The least bound still under way; nil when none is.
    var lowest: [UInt8]? { heap.least }
}
