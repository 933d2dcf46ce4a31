public import VidorientCore

/// Random access to the bytes of a file or a buffer. A read that would reach past the end throws
/// instead of returning fewer bytes, so a wrong size in a box can never turn into a short read

/// Why a range of bytes a file's structure names cannot be read, in words that say where it
/// goes wrong (issue 28: "outside the file (9363 bytes)" was said of a range that starts
/// inside it): `WHAT from 120 to 9500 runs past the end of the file (9363 bytes)`, or `WHAT
/// starts at 9400, past the end of the file (9363 bytes)`.
public func rangeBeyondTheFile(_ what: String, from start: Int64, to end: Int64, fileSize: Int64) -> String {
    if start < 0 || end < start { return "\(what) from \(start) to \(end) is not a range of bytes" }
    if start > fileSize { return "\(what) starts at \(start), past the end of the file (\(fileSize) bytes)" }
    return "\(what) from \(start) to \(end) runs past the end of the file (\(fileSize) bytes)"
}

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

/// A file read through read-ahead windows: the many small header reads of a walk through
/// `moov` become a few large `pread`s. On a warm cache this is most of the cost of reading a
/// phone clip's structure, and it is what lets `audit` sweep thousands of files a second.
///
/// Two windows, each refilled in place: a walk that goes back and forth between the start of a
/// file and a `moov` at its end (as cameras and ffmpeg write them) refills neither, and a
/// refill reads into a buffer already there rather than a new one (a new 256 KiB array is
/// `mmap`ed, faulted in page by page and unmapped again: on `fix` of a 1 GiB MP4, three such
/// refills of its first 256 KiB were a tenth of the run's CPU time).
public final class ReadAheadBytes: ByteSource {
    public let file: FileBytes
    private let windowSize: Int
    /// Where each window starts in the file and how many of its buffer's bytes are the file's;
    /// the most recently filled first.
    private var windows: [(offset: Int64, count: Int, buffer: [UInt8])] = []

    public init(_ file: FileBytes, windowSize: Int = 256 * 1024) {
        self.file = file
        self.windowSize = windowSize
    }

    public var size: Int64 { file.size }

    public func read(at offset: Int64, count: Int) throws(VidorientError) -> [UInt8] {
        guard offset >= 0, count >= 0, offset <= size, Int64(count) <= size - offset else {
            throw .malformed("read of \(count) bytes at offset \(offset) is past the end of the file (\(size) bytes)")
        }
        for window in windows
        where offset >= window.offset && offset + Int64(count) <= window.offset + Int64(window.count) {
            let start = Int(offset - window.offset)
            return Array(window.buffer[start..<start + count])
        }
        // Large reads go straight through; small ones refill a window from here on: the one
        // filled longer ago, in place.
        guard count < windowSize / 4 else { return try file.read(at: offset, count: count) }
        let length = Int(min(Int64(windowSize), size - offset))
        var window = windows.count == 2 ? windows.removeLast() : (offset: 0, count: 0, buffer: [])
        if window.buffer.count < length {
            // Sized for this file once: a file smaller than a window gets a buffer of its size.
            // Not zeroed first: only the bytes `pread` fills are ever read (`count`).
            let capacity = Int(min(Int64(windowSize), size))
            window.buffer = [UInt8](unsafeUninitializedCapacity: capacity) { _, initialized in initialized = capacity }
        }
        let got = try window.buffer.withUnsafeMutableBytes { raw in
            Result { () throws(VidorientError) in
                try System.read(
                    file.descriptor, into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<length]), at: offset)
            }
        }.get()
        // The file shrank after it was opened: someone else is writing it.
        guard got == length else { throw .malformed("file ended at \(offset + Int64(got)) while it was being read") }
        (window.offset, window.count) = (offset, length)
        windows.insert(window, at: 0)
        return Array(window.buffer[0..<count])
    }
}
