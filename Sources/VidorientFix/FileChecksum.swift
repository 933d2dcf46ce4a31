import CZlib
public import VidorientCore
public import VidorientIO

/// One state of a file, as the journal records it before and after a fix: enough to tell later
/// that the file is still exactly that one. `mtimeNanoseconds` is nil when it is not known yet
/// (a fix recorded before it was written).
public struct FileState: Sendable, Hashable {
    public var size: Int64
    public var mtimeNanoseconds: Int64?
    /// zlib's CRC-32 of the whole file.
    public var crc32: UInt32

    public init(size: Int64, mtimeNanoseconds: Int64?, crc32: UInt32) {
        self.size = size
        self.mtimeNanoseconds = mtimeNanoseconds
        self.crc32 = crc32
    }

    /// The CRC as JSON carries it: eight lowercase hex digits.
    public var crc32Hex: String {
        let digits = String(crc32, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}

/// The size and the modification time of the file a path names (links followed), or nil.
public func fileStatus(_ path: String) -> (size: Int64, mtimeNanoseconds: Int64)? {
    var status = stat()
    guard path.withPathCString({ stat($0, &status) }) == 0 else { return nil }
    return (Int64(status.st_size), nanoseconds(status.st_mtim))
}

/// A file's CRC-32 and the CRC-32 the file would have with an edit applied, from one read of the
/// file. Each stretch the edit leaves alone is checksummed once and counted into both through
/// zlib's `crc32_combine`; only the spliced bytes differ. So a fix reads its file once, whatever
/// its size (zlib's CRC-32 runs at about 1 GB/s here: a 1 GB video costs about a second).
public struct EditChecksums: Sendable, Hashable {
    /// Of the file as it is.
    public var current: UInt32
    /// Of the file the edit makes of it.
    public var edited: UInt32
    /// The file holds each splice's `old` bytes where the edit expects them.
    public var holdsOldBytes: Bool
    public var size: Int64

    /// Reads the first `size` bytes of an open file. When the file does not hold the edit's old
    /// bytes, `edited` is meaningless and set to `current`.
    public init(descriptor: Int32, size: Int64, edit: FileEdit) throws(VidorientError) {
        self.size = size
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var holds = true
        for splice in edit.splices where !splice.old.isEmpty {
            guard splice.offset + Int64(splice.old.count) <= size else {
                holds = false
                break
            }
            var old = [UInt8](repeating: 0, count: splice.old.count)
            try EditChecksums.read(descriptor, into: &old, at: splice.offset, count: old.count)
            if old != splice.old {
                holds = false
                break
            }
        }
        if edit.splices.contains(where: { $0.offset > size }) { holds = false }
        holdsOldBytes = holds

        var current: uLong = 0, edited: uLong = 0
        var position: Int64 = 0
        /// Checksums the next `count` bytes once and counts them into both.
        func unchanged(_ count: Int64) throws(VidorientError) {
            var stretch: uLong = 0
            var left = count
            while left > 0 {
                let chunk = Int(min(left, Int64(buffer.count)))
                try EditChecksums.read(descriptor, into: &buffer, at: position, count: chunk)
                stretch = buffer.withUnsafeBufferPointer { crc32(stretch, $0.baseAddress, uInt(chunk)) }
                position += Int64(chunk)
                left -= Int64(chunk)
            }
            current = crc32_combine(current, stretch, Int(count))
            edited = crc32_combine(edited, stretch, Int(count))
        }
        for splice in holds ? edit.splices : [] {
            try unchanged(splice.offset - position)
            current = EditChecksums.crc(current, splice.old)
            edited = EditChecksums.crc(edited, splice.new)
            position += Int64(splice.old.count)
        }
        try unchanged(size - position)
        self.current = UInt32(truncatingIfNeeded: current)
        self.edited = holds ? UInt32(truncatingIfNeeded: edited) : self.current
    }

    /// Opens `path` (a regular file, never blocking) and reads it once.
    public init(path: String, edit: FileEdit) throws(VidorientError) {
        let file = try RegularFile.open(path)
        defer { close(file.descriptor) }
        try self.init(descriptor: file.descriptor, size: file.size, edit: edit)
    }

    /// The CRC-32 of a whole new file given as pieces (`EditWriter.Piece`), its runs of the
    /// original read from `path`: the `after` a normalize records before it writes.
    public static func contentsCRC(_ pieces: [EditWriter.Piece], original path: String) throws(VidorientError) -> UInt32
    {
        let file = try RegularFile.open(path)
        defer { close(file.descriptor) }
        var crc: uLong = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        for piece in pieces {
            switch piece {
            case .bytes(let bytes):
                guard !bytes.isEmpty else { continue }
                crc = bytes.withUnsafeBufferPointer { crc32(crc, $0.baseAddress, uInt($0.count)) }
            case .original(let range):
                var position = range.lowerBound
                while position < range.upperBound {
                    let chunk = Int(min(range.upperBound - position, Int64(buffer.count)))
                    try read(file.descriptor, into: &buffer, at: position, count: chunk)
                    crc = buffer.withUnsafeBufferPointer { crc32(crc, $0.baseAddress, uInt(chunk)) }
                    position += Int64(chunk)
                }
            }
        }
        return UInt32(truncatingIfNeeded: crc)
    }

    /// `crc` followed by `bytes`. (zlib returns its initial value for a null buffer, which an
    /// empty array may give, so nothing is passed for no bytes.)
    static func crc(_ crc: uLong, _ bytes: [UInt8]) -> uLong {
        guard !bytes.isEmpty else { return crc }
        return bytes.withUnsafeBufferPointer { crc32(crc, $0.baseAddress, uInt($0.count)) }
    }

    /// Fills `buffer[0..<count]` from `offset`; the file must hold them.
    private static func read(_ descriptor: Int32, into buffer: inout [UInt8], at offset: Int64, count: Int)
        throws(VidorientError)
    {
        let got = try buffer.withUnsafeMutableBytes { raw in
            Result { () throws(VidorientError) in
                try System.read(descriptor, into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<count]), at: offset)
            }
        }.get()
        guard got == count else { throw .io("the file ended at \(offset + Int64(got)) while it was being read") }
    }
}
