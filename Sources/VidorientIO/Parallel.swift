import Dispatch
import Synchronization
import VidorientCore

/// Runs `body` for every index on up to `jobs` threads; each index exactly once.
public func forEachConcurrently(_ count: Int, jobs: Int, _ body: @Sendable @escaping (Int) -> Void) {
    let next = Atomic<Int>(0)
    let workers = max(1, min(jobs, count))
    DispatchQueue.concurrentPerform(iterations: workers) { _ in
        while true {
            let index = next.add(1, ordering: .relaxed).oldValue
            guard index < count else { return }
            body(index)
        }
    }
}

/// The number of processors online.
public var processorCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }
