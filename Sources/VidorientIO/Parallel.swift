import Synchronization
import VidorientCore

/// Runs `body` for every index on `jobs` threads (fewer when there are fewer indices); each index
/// exactly once, taken from one atomic counter (no lock, no wake-up per index), the calling
/// thread one of the workers. Each worker is a thread of its own (`WorkerThreads`), so
/// `--jobs 16` on two cores really has sixteen files under way (a thread waiting on a slow disk
/// leaves the core to another); `DispatchQueue.concurrentPerform` kept to about the core count.
///
/// `onCores`: each index is a core's work (decoding, encoding, judging) and holds its memory while
/// it runs, so with more jobs than cores each runs holding one of the cores' places (`CorePlaces`):
/// no more run at once than there are cores, and no more hold their decoders and buffers.
public func forEachConcurrently(
    _ count: Int, jobs: Int, onCores: Bool = false, _ body: @Sendable @escaping (Int) -> Void
) {
    let next = Atomic<Int>(0)
    let places = onCores && jobs > Processors.available ? CorePlaces(Processors.available) : nil
    let work: @Sendable (Int) -> Void = { _ in
        while true {
            let index = next.add(1, ordering: .relaxed).oldValue
            guard index < count else { return }
            places?.take()
            body(index)
            places?.give()
        }
    }
    // This thread is one of the workers, so the work gets done even if no thread can be started.
    let others = WorkerThreads(count: max(1, min(jobs, count)) - 1, work)
    work(0)
    others.join()
}

/// Threads of our own, each running `body(index)` once, for `index` in `0..<count`: the one place
/// that starts threads for jobs (`forEachConcurrently`, the audit's workers).
///
/// Not Dispatch's pool: it runs about one block per core, so `--jobs 16` on 2 cores would get 2
/// workers, and a worker waiting on a disk, a lock or a timeout would leave its core idle.
public final class WorkerThreads: Sendable {
    /// How many threads started: fewer than asked only when the system refused a thread (the
    /// others, the caller's included, then take its share).
    public let started: Int
    private let threads: Mutex<[pthread_t]>

    public init(count: Int, _ body: @Sendable @escaping (Int) -> Void) {
        var threads: [pthread_t] = []
        for index in 0..<max(0, count) {
            // Each thread owns one retain of its body, given back when it ends.
            let box = Unmanaged.passRetained(ThreadBody { body(index) }).toOpaque()
            var thread = pthread_t()
            let status = pthread_create(
                &thread, nil,
                { raw in
                    if let raw { Unmanaged<ThreadBody>.fromOpaque(raw).takeRetainedValue().run() }
                    return nil
                }, box)
            guard status == 0 else {
                Unmanaged<ThreadBody>.fromOpaque(box).release()
                break
            }
            threads.append(thread)
        }
        started = threads.count
        self.threads = Mutex(threads)
    }

    /// Waits until every thread has returned.
    public func join() {
        let all = threads.withLock { threads in
            defer { threads = [] }
            return threads
        }
        for thread in all { pthread_join(thread, nil) }
    }
}

private final class ThreadBody: Sendable {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}

/// The processors this process may run on (its affinity mask; `Processors.available`): the
/// default `--jobs`.
public var processorCount: Int { Processors.available }

/// A value behind a `pthread_mutex_t` of the default kind, for a lock that more workers than
/// cores take in turn (the audit's output, once per chunk), with a condition to wait on until the
/// value allows what a thread is about to do (`CorePlaces`' places, `MemoryBudget`'s bytes). The
/// standard library's `Mutex` waits on Linux through the kernel's priority-inheriting futex
/// (`FUTEX_LOCK_PI`, then `FUTEX_UNLOCK_PI` from its holder, as `strace -f -e futex` shows), a
/// dearer round trip than the plain futex wait and wake of glibc's mutex: four workers on two cores
/// ran a warm audit 5% faster with this lock (docs/performance.md, "Issue 32, 2026-11-29 evening").
package final class WaitingLock<State>: @unchecked Sendable {
    // Unchecked: `state` is read and written only with `mutex` held.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var state: State

    package init(_ state: State) {
        self.state = state
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(changed, nil)
    }

    deinit {
        pthread_cond_destroy(changed)
        pthread_mutex_destroy(mutex)
        changed.deallocate()
        mutex.deallocate()
    }

    package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }

    /// `body` with the lock held, once `ready` holds for the state (waiting for it, the lock given
    /// up meanwhile, until a `withLock(waking:)` wakes this thread to look again).
    package func withLock<Result>(when ready: (State) -> Bool, _ body: (inout State) throws -> Result) rethrows
        -> Result
    {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !ready(state) { pthread_cond_wait(changed, mutex) }
        return try body(&state)
    }

    /// `body` with the lock held, then one or every waiting thread woken to look at the state again.
    package func withLock<Result>(waking: Waking, _ body: (inout State) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer {
            if waking == .one { pthread_cond_signal(changed) } else { pthread_cond_broadcast(changed) }
            pthread_mutex_unlock(mutex)
        }
        return try body(&state)
    }

    package enum Waking { case one, every }
}

/// Places for workers to run on: when there are more workers than cores, the ones beyond the cores
/// would only take turns on them. A warm audit at four jobs on two cores was 9–13% slower than at
/// two: twice the units under way, each worker's chunk of records from units further apart, held
/// and copied for the run's order. So a worker takes a place before its first unit and keeps it
/// to the end, and gives it up while it waits on something that needs no core, a file's read:
/// the others then take its place, and a run that waits on a slow disk keeps as many reads in
/// flight as it has workers. Back from the read, a worker takes its place again at once, over the
/// count if need be (it holds a unit, which the rest of the run may be waiting for), and gives it
/// up at the end of the unit if it is over the count (`keepToCount`).
package final class CorePlaces: Sendable {
    /// The places free: below zero while more workers are back from a read than there are places.
    private let free: WaitingLock<Int>

    package init(_ count: Int) { free = WaitingLock(max(1, count)) }

    /// Waits for a free place and takes it.
    package func take() { free.withLock(when: { $0 > 0 }, { $0 -= 1 }) }

    /// Gives a place back (taken by `take`).
    package func give() { free.withLock(waking: .one) { $0 += 1 } }

    /// `body` with the caller's place given up meanwhile, and taken back after it without waiting.
    package func away<Result>(_ body: () throws -> Result) rethrows -> Result {
        give()
        defer { free.withLock { $0 -= 1 } }
        return try body()
    }

    /// Between two units: when more workers hold a place than there are (back from reads), the
    /// caller gives its place up and waits for a free one, so the count holds again; it calls
    /// `beforeWaiting` first (to hand over what it holds, which others may be waiting for).
    package func keepToCount(beforeWaiting: () -> Void) {
        // Given up without waking anyone: the count is still at or below zero.
        let over = free.withLock { free in
            guard free < 0 else { return false }
            free += 1
            return true
        }
        guard over else { return }
        beforeWaiting()
        take()
    }

    /// Places free now: below zero while more workers are back from a read than there are places.
    package var freeCount: Int { free.withLock { $0 } }
}
