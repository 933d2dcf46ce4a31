import Synchronization
import VidorientCore

/// Runs `body` for every index on `jobs` threads (fewer when there are fewer indices); each index
/// exactly once, the calling thread one of the workers. Each worker is a thread of its own, so
/// `--jobs 16` on two cores really has sixteen files under way (a thread waiting on a slow disk
/// leaves the core to another); `DispatchQueue.concurrentPerform` kept to about the core count.
public func forEachConcurrently(_ count: Int, jobs: Int, _ body: @Sendable @escaping (Int) -> Void) {
    let work = SharedIndices(count: count, body: body)
    let workers = max(1, min(jobs, count))
    var threads: [pthread_t] = []
    for _ in 1..<workers {
        let context = Unmanaged.passRetained(work).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(
            &thread, nil,
            { context in
                // Each thread owns one retain of the work, given back when it ends.
                if let context { Unmanaged<SharedIndices>.fromOpaque(context).takeRetainedValue().run() }
                return nil
            }, context)
        if started == 0 {
            threads.append(thread)
        } else {
            // No thread (a limit on threads): the others, the caller's included, take its share.
            Unmanaged<SharedIndices>.fromOpaque(context).release()
        }
    }
    work.run()
    for thread in threads { pthread_join(thread, nil) }
}

/// The indices the workers of one `forEachConcurrently` take from, one at a time.
private final class SharedIndices: Sendable {
    let count: Int
    let body: @Sendable (Int) -> Void
    let next = Atomic<Int>(0)

    init(count: Int, body: @escaping @Sendable (Int) -> Void) {
        self.count = count
        self.body = body
    }

    func run() {
        while true {
            let index = next.add(1, ordering: .relaxed).oldValue
            guard index < count else { return }
            body(index)
        }
    }
}

/// The number of processors online.
public var processorCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }
