package import VidorientCore

/// Every system call that can be interrupted or fail goes through here: EINTR is retried, and
/// `errno` becomes one `.io` `VidorientError` with the system's words and the code. The reads and
/// writes loop until every byte asked for is moved, so no caller writes its own loop.
package enum System {
    /// The system's words for `code`, lowercase: `no such file or directory`.
    package static func reason(_ code: Int32 = errno) -> String { String(cString: strerror(code)).lowercased() }

    /// An `.io` error for `code`, after `what` when given: `could not flush the copy: disk full`.
    package static func error(_ what: String? = nil, code: Int32 = errno) -> VidorientError {
        .io(what.map { "\($0): \(reason(code))" } ?? reason(code), code: code)
    }

    /// Calls `body` again while it fails with EINTR; a negative result is an error (`what`, then
    /// the system's reason). Returns the result otherwise.
    @discardableResult
    package static func call<Result: BinaryInteger>(_ what: String? = nil, _ body: () -> Result)
        throws(VidorientError) -> Result
    {
        while true {
            let result = body()
            if result >= 0 { return result }
            let code = errno
            if code != EINTR { throw error(what, code: code) }
        }
    }

    /// Reads from `offset` until `buffer` is full or the file ends; the bytes read.
    package static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64)
        throws(VidorientError) -> Int
    {
        var done = 0
        while done < buffer.count {
            let got = try call {
                pread(descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
            }
            if got == 0 { break }
            done += got
        }
        return done
    }

    /// Reads `count` bytes from `offset`; a file that ends first is an error (it shrank, or a
    /// size was wrong).
    package static func read(_ descriptor: Int32, count: Int, at offset: Int64) throws(VidorientError) -> [UInt8] {
        // Not zeroed first: the kernel fills it (a 12 MP photo read whole is megabytes to set twice).
        var failure: VidorientError?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            preferHugePages(UnsafeMutableRawBufferPointer(buffer))
            do throws(VidorientError) {
                let got = try read(descriptor, into: UnsafeMutableRawBufferPointer(buffer), at: offset)
                if got < count { failure = .malformed("file ended at \(offset + Int64(got)) while it was being read") }
                initialized = got
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return bytes
    }

    /// Writes every byte of `bytes` at `offset` (or, with nil, at the descriptor's position:
    /// a pipe or a device).
    package static func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int64?)
        throws(VidorientError)
    {
        var done = 0
        while done < bytes.count {
            let wrote = try call("could not write") {
                if let offset {
                    pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
                } else {
                    Glibc.write(descriptor, bytes.baseAddress! + done, bytes.count - done)
                }
            }
            // A write of nothing that is not an error: a device that takes no more.
            guard wrote > 0 else { throw .io("could not write: the device took no more bytes") }
            done += wrote
        }
    }

    package static func write(_ descriptor: Int32, _ bytes: [UInt8], at offset: Int64?) throws(VidorientError) {
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(VidorientError) in try write(descriptor, buffer, at: offset) }
        }.get()
    }

    /// Asks the kernel to back the 2 MiB-aligned parts of a large buffer not yet touched with
    /// transparent huge pages (`MADV_HUGEPAGE`; systems set THP to "madvise" by default): a photo
    /// read or written whole then costs a few page faults instead of thousands (each zeroes and
    /// charges a 4 KiB page; for a 12 MP JPEG they were the most of normalize's extra time over
    /// jpegtran). Only a hint: a kernel without THP ignores it, and nothing depends on it.
    package static func preferHugePages(_ buffer: UnsafeMutableRawBufferPointer) {
        let huge = 2 << 20
        guard buffer.count >= 2 * huge, let base = buffer.baseAddress else { return }
        let start = (Int(bitPattern: base) + huge - 1) & ~(huge - 1)
        let end = (Int(bitPattern: base) + buffer.count) & ~(huge - 1)
        guard end > start, let aligned = UnsafeMutableRawPointer(bitPattern: start) else { return }
        _ = madvise(aligned, end - start, 14)  // MADV_HUGEPAGE, which Swift's Glibc module leaves out
    }

    /// `stat` of what `path` names (links followed); nil when it names nothing.
    package static func status(_ path: String) -> stat? {
        var status = stat()
        return path.withPathCString { stat($0, &status) } == 0 ? status : nil
    }

    /// `fstat` of an open descriptor.
    package static func status(_ descriptor: Int32) throws(VidorientError) -> stat {
        var status = stat()
        try call { fstat(descriptor, &status) }
        return status
    }
}
