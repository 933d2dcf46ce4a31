package import VidorientCore

/// What identifies one state of a file without reading it: if none of these changed, its bytes
/// did not either. ctime matters because it cannot be set back: a rewrite in place that restores
/// the size and the mtime still moves it. The audit cache's key; `LibraryWalk` hands one over
/// with each file it finds, from its own `lstat`.
public struct FileKey: Sendable, Hashable {
    public var device: UInt64
    public var inode: UInt64
    public var size: Int64
    public var mtimeNanoseconds: Int64
    public var ctimeNanoseconds: Int64

    /// The file a path leads to (links followed: the target is what gets audited), or nil.
    public init?(path: String) {
        var status = stat()
        guard path.withPathCString({ stat($0, &status) }) == 0 else { return nil }
        self.init(status)
    }

    /// What a `stat` already made said: the walk's, so that a file is not asked twice.
    init(_ status: stat) {
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        size = Int64(status.st_size)
        mtimeNanoseconds = nanoseconds(status.st_mtim)
        ctimeNanoseconds = nanoseconds(status.st_ctim)
    }
}

/// A file time in nanoseconds since the epoch, saturating: anyone may set a file's time (`touch
/// -d 2300-01-01`), and seconds past 2262 times 10⁹ pass `Int64.max` (issue 28: an audit of a
/// folder holding such a file trapped). Such times all read as `Int64.max` (or `.min`).
package func nanoseconds(_ time: timespec) -> Int64 {
    let (seconds, overflow) = Int64(time.tv_sec).multipliedReportingOverflow(by: 1_000_000_000)
    guard !overflow else { return time.tv_sec < 0 ? .min : .max }
    let (total, past) = seconds.addingReportingOverflow(Int64(time.tv_nsec))
    return past ? .max : total
}
