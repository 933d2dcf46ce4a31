import VidorientCore

/// Bytes that the jobs of this process may hold at once for one kind of work, each job reserving
/// what it is about to use before it starts and waiting while the budget is taken (issue 32: a
/// folder of phone photos, each decoded whole by libheif, took 350-680 MB at two jobs, and more
/// with more jobs). A job that asks for more than the whole budget gets the whole budget: it
/// runs alone, never refused. Reservations are not nested (a job holds one at a time), so no
/// job waits on itself.
public final class MemoryBudget: Sendable {
    /// Decoded pictures: every photo decoded for a thumbnail, a comparison, a content verdict
    /// or the HTML report, whatever the number of workers. With the process itself (about 20 MB,
    /// 45 MB with FFmpeg loaded) and the encoded outputs, a batch stays under 300 MB.
    /// Each decoder's large buffers are unmapped when freed (`System.mapLargeBlocks`), so that
    /// what a batch holds follows what its jobs reserve.
    public static let decoding: MemoryBudget = {
        System.mapLargeBlocks()
        return MemoryBudget(bytes: 192 << 20)
    }()

    /// The most bytes reserved at once.
    public let bytes: Int
    /// The bytes reserved now.
    private let reserved = WaitingLock(0)

    public init(bytes: Int) { self.bytes = max(1, bytes) }

    /// Runs `body` once `bytes` (at most the whole budget) are reserved for it, and gives them
    /// back after.
    public func withReservation<T, Failure: Error>(_ bytes: Int, _ body: () throws(Failure) -> T) throws(Failure) -> T {
        let amount = min(max(0, bytes), self.bytes)
        let budget = self.bytes
        reserved.withLock(when: { $0 == 0 || $0 + amount <= budget }, { $0 += amount })
        defer { reserved.withLock(waking: .every) { $0 -= amount } }
        return try body()
    }

    /// Bytes reserved now (for tests and diagnostics).
    public var inUse: Int { reserved.withLock { $0 } }
}
