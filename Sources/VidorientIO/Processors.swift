import VidorientCore

/// How many processors this process may run on: the default for `--jobs` and for the threads
/// one picture is decoded on.
///
/// `sysconf(_SC_NPROCESSORS_ONLN)` counts every processor online, whatever the process is
/// allowed: under `taskset -c 0-3`, a cgroup cpuset (Slurm's `--cpus-per-task`, a container
/// limited to some cores) it would start more workers than cores, which then take turns. The
/// affinity mask is what the scheduler obeys, so it is counted first.
public enum Processors {
    /// The processors in this process's affinity mask; those online when the mask cannot be
    /// read (another system, or more than 8,192 processors). At least 1.
    public static var available: Int {
        // 1,024 bytes: 8,192 processors, far past any machine this runs on.
        var mask = [UInt8](repeating: 0, count: 1024)
        if let getAffinity, mask.withUnsafeMutableBytes({ getAffinity(0, $0.count, $0.baseAddress) }) == 0 {
            let count = mask.reduce(0) { $0 + $1.nonzeroBitCount }
            if count > 0 { return count }
        }
        return online
    }

    /// The processors online, whatever this process may use. At least 1.
    public static var online: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    /// `sched_getaffinity(2)` and `sched_setaffinity(2)` (pid 0: the calling thread), found by
    /// name: glibc declares them only under `_GNU_SOURCE`, which its Swift module is not built
    /// with. nil where the C library has none.
    public typealias AffinityCall = @convention(c) (Int32, Int, UnsafeMutableRawPointer?) -> Int32
    public static let getAffinity = function("sched_getaffinity")
    public static let setAffinity = function("sched_setaffinity")

    private static func function(_ name: String) -> AffinityCall? {
        // A null handle is RTLD_DEFAULT: the libraries already loaded, libc among them.
        dlsym(nil, name).map { unsafeBitCast($0, to: AffinityCall.self) }
    }
}
