/// One change to a file's bytes: `old` at `offset` (counted in the file before the edit) becomes
/// `new`. A replacement has `old.count == new.count`; an insertion has an empty `old`; a removal
/// an empty `new`.
public struct ByteSplice: Sendable, Hashable {
    public var offset: Int64
    public var old: [UInt8]
    public var new: [UInt8]

    public init(offset: Int64, old: [UInt8], new: [UInt8]) {
        self.offset = offset
        self.old = old
        self.new = new
    }

    /// Bytes whose value differs (for a replacement), or every byte inserted and removed.
    public var bytesChanged: Int {
        guard old.count == new.count else { return old.count + new.count }
        return zip(old, new).reduce(0) { $0 + ($1.0 == $1.1 ? 0 : 1) }
    }
}

/// Every byte change of one fix, video or photo, as splices against the original file. This is
/// the unit that is written (in place when the length is kept, else a streamed copy renamed
/// over), journaled, and undone: `inverse` applied to the edited file gives back the original,
/// byte for byte.
public struct FileEdit: Sendable, Hashable {
    /// Sorted by offset; no two overlap; none is a no-op.
    public private(set) var splices: [ByteSplice]

    /// Sorts the splices, drops those that change nothing, and refuses overlapping ones: a plan
    /// that makes them is wrong (`.malformed`).
    public init(_ splices: [ByteSplice]) throws(VidorientError) {
        let sorted = splices.filter { $0.old != $0.new }.sorted { $0.offset < $1.offset }
        for (first, second) in zip(sorted, sorted.dropFirst()) {
            let firstEnd = first.offset + Int64(first.old.count)
            // Two insertions at one offset would be ambiguous; a splice may not start inside another.
            if second.offset < firstEnd || (second.offset == first.offset && first.old.isEmpty) {
                throw .malformed("splices at \(first.offset) and \(second.offset) overlap")
            }
        }
        if let negative = sorted.first(where: { $0.offset < 0 }) {
            throw .malformed("a splice at \(negative.offset) is before the start of the file")
        }
        self.splices = sorted
    }

    public static let none = FileEdit(unchecked: [])

    private init(unchecked splices: [ByteSplice]) { self.splices = splices }

    public var isEmpty: Bool { splices.isEmpty }

    /// True when no splice changes the file's length: the edit can be written in place.
    public var keepsLength: Bool { splices.allSatisfy { $0.old.count == $0.new.count } }

    public var bytesChanged: Int { splices.reduce(0) { $0 + $1.bytesChanged } }

    /// How much longer (or, negative, shorter) the edited file is.
    public var sizeChange: Int64 { splices.reduce(0) { $0 + Int64($1.new.count - $1.old.count) } }

    /// The edit that takes the edited file back to the original: each splice swapped, its offset
    /// moved by the size changes of the splices before it.
    public var inverse: FileEdit {
        var shift: Int64 = 0
        var inverted: [ByteSplice] = []
        for splice in splices {
            inverted.append(ByteSplice(offset: splice.offset + shift, old: splice.new, new: splice.old))
            shift += Int64(splice.new.count - splice.old.count)
        }
        return FileEdit(unchecked: inverted)
    }

    /// True when `bytes` holds each splice's `old` bytes where the splice expects them.
    public func matches(_ bytes: [UInt8]) -> Bool {
        splices.allSatisfy { splice in
            let start = Int(splice.offset)
            return start + splice.old.count <= bytes.count
                && bytes[start..<start + splice.old.count].elementsEqual(splice.old)
        }
    }

    /// The edited bytes, for a file held in memory. The caller has checked `matches(bytes)`.
    public func applied(to bytes: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count + Int(max(0, sizeChange)))
        var position = 0
        for splice in splices {
            let start = Int(splice.offset)
            result.append(contentsOf: bytes[position..<start])
            result.append(contentsOf: splice.new)
            position = start + splice.old.count
        }
        result.append(contentsOf: bytes[position...])
        return result
    }
}
