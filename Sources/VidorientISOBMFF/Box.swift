import VidorientIO

/// Where one box sits in the file: its header, read and checked, and nothing of its payload.
/// The one type for a box's place, whether a parser reads on from it or an editor rewrites its size.
package struct BoxHeader: Sendable, Hashable {
    package var type: FourCC
    /// Absolute file offset of the first byte of the size field.
    package var offset: Int64
    /// 8, 16 with a 64-bit size, and 16 more for a `uuid` box's extended type.
    package var headerSize: Int64
    package var size: Int64
    /// 4 for a 32-bit size, 8 for a 64-bit one (at `offset + 8`), 0 for a size of 0 ("to the
    /// end"), which never needs changing.
    package var sizeFieldWidth: Int
    /// The extended type of a `uuid` box.
    package var userType: [UInt8]?

    package var payloadOffset: Int64 { offset + headerSize }
    package var payloadSize: Int64 { size - headerSize }
    package var end: Int64 { offset + size }
    /// Where the size field is.
    package var sizeFieldOffset: Int64 { sizeFieldWidth == 8 ? offset + 8 : offset }
}

/// Lists boxes one level at a time, reading only their headers. Each box's size is checked
/// against the space its parent (or the file) has left before anything inside it is read, so
/// no later read of a payload can reach past its box; nesting depth and the total number of
/// boxes are bounded, so a hostile file cannot make the walk deep or long.
struct BoxWalker<Source: ByteSource> {
    let source: Source
    private(set) var boxCount = 0

    /// Deeper than any real file (the deepest path read, a mebx key's `keyd`, is at level 9).
    static var maximumDepth: Int { 16 }
    /// A 1 GB file of empty 8-byte boxes would have 134 million; real files have hundreds,
    /// or tens of thousands when fragmented.
    static var maximumBoxes: Int { 1_000_000 }

    /// Where the file ends inside its last top-level box (`boxes` with `cutEnd`): that box, as
    /// much of it as the file has (nil when the file ends inside its header), and the reason.
    struct Cut {
        var box: BoxHeader?
        var reason: String
    }

    private(set) var cut: Cut?

    init(_ source: Source) { self.source = source }

    /// The boxes between `start` and `end`: the whole file for the top level, or a box's payload.
    /// `depth` is 0 for the top level; `parent` names the enclosing box in error messages.
    ///
    /// With `cutEnd`, a last top-level box that runs past the end of the file (a cut copy or
    /// download) is listed with the bytes the file has, and why is kept in `cut`, instead of
    /// throwing: a parser decides whether what is left is enough.
    mutating func boxes(from start: Int64, to end: Int64, depth: Int, in parent: BoxHeader?, cutEnd: Bool = false)
        throws(ISOBMFFError) -> [BoxHeader]
    {
        guard depth <= Self.maximumDepth else {
            throw .malformed("boxes are nested more than \(Self.maximumDepth) levels deep")
        }
        guard 0 <= start, start <= end, end <= source.size else {
            throw .malformed(rangeBeyondTheFile("box contents", from: start, to: end, fileSize: source.size))
        }
        // Only error messages need it: building the string for every list of boxes cost more
        // than the walk itself.
        var container: String { parent.map { "its parent '\($0.type)' at \($0.offset)" } ?? "the file" }
        var found: [BoxHeader] = []
        var position = start
        while position < end {
            let remaining = end - position
            if remaining < 8 {
                // QuickTime ends some lists with a 32-bit zero; anything else is a cut-off header.
                let tail = try source.read(at: position, count: Int(remaining))
                guard tail.allSatisfy({ $0 == 0 }) else {
                    let reason = "truncated box header at \(position): \(container) has only \(remaining) bytes left"
                    if cutEnd {
                        cut = Cut(box: nil, reason: reason)
                        break
                    }
                    throw .malformed(reason)
                }
                break
            }
            boxCount += 1
            guard boxCount <= Self.maximumBoxes else {
                throw .malformed("more than \(Self.maximumBoxes) boxes")
            }
            var header = ByteCursor(try source.read(at: position, count: 8), box: "    ", at: position)
            var size = Int64(try header.uint32())
            let type = try header.fourCC()
            var headerSize: Int64 = 8
            let sizeFieldWidth = size == 1 ? 8 : size == 0 ? 0 : 4
            if size == 1 {
                guard remaining >= 16 else {
                    throw .malformed("truncated 64-bit size of the '\(type)' box at \(position)")
                }
                var large = ByteCursor(try source.read(at: position + 8, count: 8), box: type, at: position)
                let value = try large.uint64()
                size = value <= UInt64(Int64.max) ? Int64(value) : Int64.max
                headerSize = 16
            } else if size == 0 {
                // "To the end of the file" at the top level; FFmpeg reads it as "to the end of
                // the parent" inside a box, and so does this.
                size = remaining
            }
            var userType: [UInt8]?
            if type == "uuid" {
                guard remaining >= headerSize + 16 else {
                    throw .malformed("truncated extended type of the 'uuid' box at \(position)")
                }
                userType = try source.read(at: position + headerSize, count: 16)
                headerSize += 16
            }
            guard size >= headerSize else {
                throw .malformed(
                    "'\(type)' box at \(position) has size \(size), smaller than its \(headerSize)-byte header")
            }
            guard size <= remaining else {
                let reason =
                    "'\(type)' box at \(position) has size \(size) but \(container) has only \(remaining) bytes left"
                guard cutEnd else { throw .malformed(reason) }
                let header = BoxHeader(
                    type: type, offset: position, headerSize: headerSize, size: remaining,
                    sizeFieldWidth: sizeFieldWidth, userType: userType)
                cut = Cut(box: header, reason: reason)
                found.append(header)
                break
            }
            found.append(
                BoxHeader(
                    type: type, offset: position, headerSize: headerSize, size: size, sizeFieldWidth: sizeFieldWidth,
                    userType: userType))
            position += size
        }
        return found
    }

    /// The children of `box`, whose own children start `skipping` bytes into its payload (the
    /// version and flags of a full box, or a sample entry's fixed fields).
    mutating func children(of box: BoxHeader, skipping: Int64 = 0, depth: Int) throws(ISOBMFFError) -> [BoxHeader] {
        guard skipping <= box.payloadSize else {
            throw .malformed("'\(box.type)' box at \(box.offset) is too short: \(box.payloadSize) bytes of content")
        }
        return try boxes(from: box.payloadOffset + skipping, to: box.end, depth: depth, in: box)
    }

    /// The first `limit` bytes of `box`'s payload (all of it when smaller): the fixed fields a
    /// parser wants, never a whole sample table or media data.
    func payload(of box: BoxHeader, limit: Int) throws(ISOBMFFError) -> ByteCursor {
        let count = Int(min(box.payloadSize, Int64(limit)))
        return ByteCursor(try source.read(at: box.payloadOffset, count: count), box: box.type, at: box.offset)
    }
}
