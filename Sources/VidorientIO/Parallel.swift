import Synchronization
import VidorientCore

/// Runs `body` for every index on `jobs` threads (fewer when there are fewer indices); each index
/// exactly once, taken from one atomic counter (no lock, no wake-up per index), the calling
/// thread one of the workers. Each worker is a thread of its own (`WorkerThreads`), so
/// `--jobs 16` on two cores really has sixteen files under way (a thread waiting on a slow disk
/// leaves the core to another); `DispatchQueue.concurrentPerform` kept to about the core count.
public func forEachConcurrently(_ count: Int, jobs: Int, _ body: @Sendable @escaping (Int) -> Void) {
    let next = Atomic<Int>(0)
    let work: @Sendable (Int) -> Void = { _ in
        while true {
            let index = next.add(1, ordering: .relaxed).oldValue
            guard index < count else { return }
            body(index)
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
/// cores take in turn (the audit's output, once per chunk). The standard library's `Mutex` waits
/// on Linux through the kernel's priority-inheriting futex (`FUTEX_LOCK_PI`, then
/// `FUTEX_UNLOCK_PI` from its holder, as `strace -f -e futex` shows), a dearer round trip than the
/// plain futex wait and wake of glibc's mutex: four workers on two cores ran a warm audit 5% faster
/// with this lock (docs/performance.md, "Issue 32, 2026-11-29 evening").
package final class WaitingLock<State>: @unchecked Sendable {
    // Unchecked: `state` is read and written only with `mutex` held.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var state: State

    package init(_ state: State) {
        self.state = state
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }
}
