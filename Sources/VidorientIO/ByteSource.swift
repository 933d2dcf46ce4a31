import VidorientCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Random access to the bytes of a file or a buffer. A read that would reach past the end throws
/// instead of returning fewer bytes, so a wrong size in a box can never turn into a short read
/// that is parsed as if it were whole.
public protocol ByteSource {
    var size: Int64 { get }
    /// Exactly `count` bytes starting at `offset`.
    func read(at offset: Int64, count: Int) throws(ISOBMFFError) -> [UInt8]
}

/// A buffer in memory: for tests and the fuzzer, which must never touch the disk.
public struct MemoryBytes: ByteSource, Sendable {
    public let bytes: [UInt8]

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public var size: Int64 { Int64(bytes.count) }

    public func read(at offset: Int64, count: Int) throws(ISOBMFFError) -> [UInt8] {
        guard offset >= 0, count >= 0, offset <= size, Int64(count) <= size - offset else {
            throw .malformed("read of \(count) bytes at offset \(offset) is past the end (\(size) bytes)")
        }
        return Array(bytes[Int(offset)..<Int(offset) + count])
    }
}

/// An open file, read with `pread` and written with `pwrite`: owns one descriptor from a
/// successful `open` to `deinit`.
public final class FileBytes: ByteSource {
    public let path: String
    /// The size when the file was opened; reads beyond it throw even if the file grew since.
    public let size: Int64
    let descriptor: Int32

    /// Opens `path` after the checks that name the problem better than `open`'s errno would.
    public init(path: String, writable: Bool = false) throws(ISOBMFFError) {
        self.path = path
        // Never blocks on a FIFO or a device; the size comes from the descriptor, not the path,
        // which may have been replaced since.
        let opened = Result { () throws(RegularFile.OpenError) in try RegularFile.open(path, writable: writable) }
        switch opened {
        case .success(let file): (descriptor, size) = file
        case .failure(let error): throw ISOBMFFError(.io, error.reason)
        }
        guard size > 0 else { throw ISOBMFFError(.malformed, "file is empty") }
    }

    deinit { close(descriptor) }

    public func read(at offset: Int64, count: Int) throws(ISOBMFFError) -> [UInt8] {
        guard offset >= 0, count >= 0, offset <= size, Int64(count) <= size - offset else {
            throw .malformed("read of \(count) bytes at offset \(offset) is past the end of the file (\(size) bytes)")
        }
        var buffer = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let result = buffer.withUnsafeMutableBytes { raw in
                pread(descriptor, raw.baseAddress! + done, count - done, off_t(offset) + off_t(done))
            }
            if result < 0 {
                if errno == EINTR { continue }
                throw FileBytes.errnoError()
            }
            // The file shrank after it was opened: someone else is writing it.
            guard result > 0 else { throw .malformed("file ended at \(offset + Int64(done)) while it was being read") }
            done += result
        }
        return buffer
    }

    /// Writes all of `bytes` at `offset`.
    func write(_ bytes: [UInt8], at offset: Int64) throws(ISOBMFFError) {
        var done = 0
        while done < bytes.count {
            let result = bytes.withUnsafeBytes { raw in
                pwrite(descriptor, raw.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            }
            if result < 0 {
                if errno == EINTR { continue }
                throw FileBytes.errnoError()
            }
            done += result
        }
    }

    /// Flushes the file's data and metadata to the disk.
    func synchronize() throws(ISOBMFFError) {
        guard fsync(descriptor) == 0 else { throw FileBytes.errnoError() }
    }

    func status() throws(ISOBMFFError) -> stat {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw FileBytes.errnoError() }
        return status
    }

    static func errnoError(_ code: Int32 = errno) -> ISOBMFFError {
        ISOBMFFError(.io, String(cString: strerror(code)).lowercased())
    }
}

/// A file read through one read-ahead window: the many small header reads of a walk through
/// `moov` become a few large `pread`s. On a warm cache this is most of the cost of reading a
/// phone clip's structure, and it is what lets `audit` sweep thousands of files a second.
public final class ReadAheadBytes: ByteSource {
    public let file: FileBytes
    private let windowSize: Int
    private var windowOffset: Int64 = 0
    private var window: [UInt8] = []

    public init(_ file: FileBytes, windowSize: Int = 256 * 1024) {
        self.file = file
        self.windowSize = windowSize
    }

    public var size: Int64 { file.size }

    public func read(at offset: Int64, count: Int) throws(ISOBMFFError) -> [UInt8] {
        guard offset >= 0, count >= 0, offset <= size, Int64(count) <= size - offset else {
            throw .malformed("read of \(count) bytes at offset \(offset) is past the end of the file (\(size) bytes)")
        }
        if offset >= windowOffset, offset + Int64(count) <= windowOffset + Int64(window.count) {
            let start = Int(offset - windowOffset)
            return Array(window[start..<start + count])
        }
        // Large reads go straight through; small ones refill the window from here on.
        guard count < windowSize / 4 else { return try file.read(at: offset, count: count) }
        let length = Int(min(Int64(windowSize), size - offset))
        window = try file.read(at: offset, count: length)
        windowOffset = offset
        return Array(window[0..<count])
    }
}

/// A four-character code: a box type, a brand, a handler or a sample-entry format.
public struct FourCC: RawRepresentable, Hashable, Sendable, Comparable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    public var rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Four characters, each Latin-1 (so `©` is the byte 0xA9 that QuickTime's `©nam` uses).
    public init(stringLiteral text: String) {
        let scalars = Array(text.unicodeScalars)
        precondition(scalars.count == 4 && scalars.allSatisfy { $0.value < 256 }, "a FourCC is four Latin-1 characters")
        rawValue = scalars.reduce(0) { $0 << 8 | $1.value }
    }

    public var bytes: [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: rawValue >> $0) } }

    /// The four characters when they are printable (`©` included), otherwise `0x` and eight hex
    /// digits: QuickTime item lists use key indices such as 1 as box types.
    public var description: String {
        let characters = bytes
        guard characters.allSatisfy({ (0x20...0x7E).contains($0) || $0 == 0xA9 }) else {
            let hex = String(rawValue, radix: 16)
            return "0x" + String(repeating: "0", count: 8 - hex.count) + hex
        }
        return String(String.UnicodeScalarView(characters.map { Unicode.Scalar($0) }))
    }

    public static func < (lhs: FourCC, rhs: FourCC) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Big-endian fields read one after another from a box payload already in memory. Every read is
/// checked against what is left; running out throws, naming the box.
struct ByteCursor {
    let bytes: [UInt8]
    let box: FourCC
    let boxOffset: Int64
    private(set) var position = 0

    init(_ bytes: [UInt8], box: FourCC, at boxOffset: Int64) {
        self.bytes = bytes
        self.box = box
        self.boxOffset = boxOffset
    }

    var remaining: Int { bytes.count - position }

    private func tooShort(_ wanted: Int) -> ISOBMFFError {
        .malformed(
            "'\(box)' box at \(boxOffset) is too short: needs \(position + wanted) bytes of content, has \(bytes.count)"
        )
    }

    mutating func skip(_ count: Int) throws(ISOBMFFError) {
        guard count >= 0, count <= remaining else { throw tooShort(count) }
        position += count
    }

    mutating func take(_ count: Int) throws(ISOBMFFError) -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else { throw tooShort(count) }
        defer { position += count }
        return bytes[position..<position + count]
    }

    mutating func rest() -> ArraySlice<UInt8> {
        defer { position = bytes.count }
        return bytes[position...]
    }

    mutating func uint(_ width: Int) throws(ISOBMFFError) -> UInt64 {
        try take(width).reduce(0) { $0 << 8 | UInt64($1) }
    }

    mutating func uint8() throws(ISOBMFFError) -> UInt8 { UInt8(try uint(1)) }
    mutating func uint16() throws(ISOBMFFError) -> UInt16 { UInt16(try uint(2)) }
    mutating func uint32() throws(ISOBMFFError) -> UInt32 { UInt32(try uint(4)) }
    mutating func uint64() throws(ISOBMFFError) -> UInt64 { try uint(8) }
    mutating func int32() throws(ISOBMFFError) -> Int32 { Int32(bitPattern: try uint32()) }
    mutating func fourCC() throws(ISOBMFFError) -> FourCC { FourCC(rawValue: try uint32()) }
}

extension Array where Element == UInt8 {
    /// Big-endian bytes of `value`.
    init(bigEndian value: Int32) {
        let bits = UInt32(bitPattern: value)
        self = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: bits >> $0) }
    }
}
