public import VidorientCore

/// Random access to the bytes of a file or a buffer. A read that would reach past the end throws
/// instead of returning fewer bytes, so a wrong size in a box can never turn into a short read
/// that is parsed as if it were whole.
public protocol ByteSource {
    var size: Int64 { get }
    /// Exactly `count` bytes starting at `offset`.
    func read(at offset: Int64, count: Int) throws(VidorientError) -> [UInt8]
}

/// A buffer in memory: for tests and the fuzzer, which must never touch the disk.
public struct MemoryBytes: ByteSource, Sendable {
    public let bytes: [UInt8]

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public var size: Int64 { Int64(bytes.count) }

    public func read(at offset: Int64, count: Int) throws(VidorientError) -> [UInt8] {
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
    package let descriptor: Int32

    /// Opens `path` after the checks that name the problem better than `open`'s errno would.
    public init(path: String, writable: Bool = false) throws(VidorientError) {
        self.path = path
        // Never blocks on a FIFO or a device; the size comes from the descriptor, not the path,
        // which may have been replaced since.
        (descriptor, size) = try RegularFile.open(path, writable: writable)
        // A class's `deinit` runs for an `init` that throws once every property is set: it closes.
        guard size > 0 else { throw .malformed("file is empty") }
    }

    deinit { close(descriptor) }

    /// The whole file at `path`; a file larger than `limit` bytes is refused (`.unsupported`).
    public static func readAll(_ path: String, limit: Int64) throws(VidorientError) -> [UInt8] {
        let file = try FileBytes(path: path)
        guard file.size <= limit else {
            throw .unsupported("the file is \(file.size) bytes, more than the \(limit) read whole")
        }
        return try file.read(at: 0, count: Int(file.size))
    }

    public func read(at offset: Int64, count: Int) throws(VidorientError) -> [UInt8] {
        guard offset >= 0, count >= 0, offset <= size, Int64(count) <= size - offset else {
            throw .malformed("read of \(count) bytes at offset \(offset) is past the end of the file (\(size) bytes)")
        }
        // The file shrank after it was opened: someone else is writing it.
        return try System.read(descriptor, count: count, at: offset)
    }

    /// Writes all of `bytes` at `offset`.
    package func write(_ bytes: [UInt8], at offset: Int64) throws(VidorientError) {
        try System.write(descriptor, bytes, at: offset)
    }

    /// Flushes the file's data and metadata to the disk.
    package func synchronize() throws(VidorientError) {
        try System.call("could not flush the file") { fsync(descriptor) }
    }

    package func status() throws(VidorientError) -> stat { try System.status(descriptor) }
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

    public func read(at offset: Int64, count: Int) throws(VidorientError) -> [UInt8] {
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
