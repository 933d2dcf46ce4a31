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

    /// The C library's `write(2)`, once, unwrapped (no retry: async-signal-safe), for code inside
    /// a type with a `write` of its own, where the plain name finds the method. The one place that
    /// names the C library's module (glibc, or musl for a static build).
    package static func unbufferedWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.write(descriptor, bytes, count)
        #else
        Musl.write(descriptor, bytes, count)
        #endif
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
                    unbufferedWrite(descriptor, bytes.baseAddress! + done, bytes.count - done)
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

    private typealias MallocOption = @convention(c) (Int32, Int32) -> Int32

    /// Blocks of this many bytes or more each get their own `mmap` once `mapLargeBlocks` has run,
    /// and go back to the system when freed.
    package static let largeBlock: Int32 = 1 << 20

    /// Makes glibc serve every block of `largeBlock` bytes or more with its own `mmap`, unmapped
    /// when freed (`M_MMAP_THRESHOLD`, which also stops glibc from raising that threshold by
    /// itself). By default, once a decoder frees one of its tens of megabytes of buffers, glibc
    /// raises the threshold to that size (up to 32 MiB) and serves the next such buffers from the
    /// heap of whichever thread asked, keeping them when freed: forty 12 MP AVIFs thumbnailed one
    /// at a time held 263 MB at `--jobs 1` and 555 MB at `--jobs 16`, though only one was decoded
    /// at a time; with this, 130 MB and 133 MB (issue 32). Nothing where the C library has no `mallopt`.
    package static func mapLargeBlocks() {
        _ = mallocOption?(-3, largeBlock)  // M_MMAP_THRESHOLD
    }

    /// glibc's `mallopt`, looked up at run time: Swift's Glibc module leaves out `malloc.h`.
    /// nil where the C library lacks it.
    private static let mallocOption: MallocOption? = dlsym(nil, "mallopt").map {
        unsafeBitCast($0, to: MallocOption.self)
    }

    /// Runs `body`, a C library's burst of large, short-lived allocations of about `bytes` in all
    /// (libjpeg-turbo's coefficient arrays: a 12 MP JPEG turned by `tjTransform` allocates 72 MiB,
    /// touches all of it and frees it), with those allocations served from heap pages the kernel
    /// backs with transparent huge pages. Each 4 KiB page glibc's `mmap`-backed chunks would
    /// take costs a page fault (zeroing, charging) and its share of the `munmap` at the end:
    /// 18,000 of them were 20 ms of a 160 ms `normalize`, the most of its time over jpegtran's.
    ///
    /// How: while `body` runs, glibc serves allocations up to 32 MiB from the heap (not one
    /// `mmap` each) and keeps freed heap memory; before it, the heap is grown by `bytes` untouched
    /// and that stretch is marked `MADV_HUGEPAGE`. Afterwards glibc's documented defaults are put
    /// back (128 KiB for the trim threshold and the top pad) and the mmap threshold is
    /// `largeBlock`, as `mapLargeBlocks` sets it (glibc then no longer moves it by itself).
    /// Only a hint, like `preferHugePages`: where the heap cannot be grown that way (another
    /// thread's arena, no `mallopt`), `body` runs as it would have.
    package static func withHugePageHeap<Result, Failure: Error>(
        bytes: Int, _ body: () throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let huge = 2 << 20
        let mmapThreshold: Int32 = -3, trimThreshold: Int32 = -1, topPad: Int32 = -2  // M_MMAP_THRESHOLD, ...
        let glibcDefault: Int32 = 128 * 1024, mostFromHeap: Int32 = 32 << 20  // the most M_MMAP_THRESHOLD takes
        guard bytes >= 4 * huge, bytes <= 1 << 29, let mallocOption else { return try body() }
        // A block just under the threshold comes from the top of the heap, which grows by it and
        // the pad; freed, it leaves `[probe, break)` free and untouched but for its header, kept
        // (not trimmed) while the trim threshold is above all of it.
        let probeSize = Int(mostFromHeap) - 64 * 1024
        _ = mallocOption(mmapThreshold, mostFromHeap)
        _ = mallocOption(trimThreshold, Int32(probeSize + 2 * bytes + huge))
        _ = mallocOption(topPad, Int32(bytes))
        defer {
            _ = mallocOption(mmapThreshold, largeBlock)
            _ = mallocOption(topPad, glibcDefault)
            _ = mallocOption(trimThreshold, glibcDefault)
        }
        guard let probe = malloc(probeSize) else { return try body() }
        free(probe)
        let start = Int(bitPattern: probe), end = Int(bitPattern: sbrk(0))
        // Only on the main arena's heap (the block below the break); another thread's arena or
        // an `mmap`ed block is left alone.
        let first = (start + huge - 1) & ~(huge - 1), last = end & ~(huge - 1)
        guard start + probeSize <= end, last - first >= huge, let base = UnsafeMutableRawPointer(bitPattern: first)
        else { return try body() }
        _ = madvise(base, last - first, 14)  // MADV_HUGEPAGE
        // Where in its page the stretch starts was left to what the heap held before (a longer
        // file name, a few bytes more): with the arrays near the page offset of the `mmap`ed
        // buffers the body streams (16, as glibc places them), a 12 MP transform took 133 ms of
        // CPU instead of 108, for some lengths of the command line and not others. A spacer puts
        // the top of the heap 1 KiB further into its page, which measured fast for every length.
        let top = start - 16  // the header of the top chunk, where the body's blocks start
        let gap = (1040 - (top & 4095) + 4096) % 4096
        let spacer = gap >= 32 ? malloc(gap - 16) : nil
        defer { free(spacer) }
        return try body()
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
