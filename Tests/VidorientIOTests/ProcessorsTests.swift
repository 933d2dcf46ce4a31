import Glibc
import Testing
import VidorientIO

/// The default number of workers follows the affinity mask (taskset, a cgroup cpuset, Slurm's
/// `--cpus-per-task`), not the processors online.
@Suite struct ProcessorsTests {
    @Test func theAffinityMaskIsCounted() throws {
        let get = try #require(Processors.getAffinity), set = try #require(Processors.setAffinity)
        var saved = [UInt8](repeating: 0, count: 1024)
        try #require(saved.withUnsafeMutableBytes { get(0, $0.count, $0.baseAddress) } == 0)
        #expect(Processors.available == saved.reduce(0) { $0 + $1.nonzeroBitCount })
        #expect(Processors.available <= Processors.online)

        // This thread alone, on its first allowed processor (the call is per thread: the rest
        // of the test run keeps its mask, and this thread gets its own back below).
        let first = try #require((0..<saved.count * 8).first { saved[$0 / 8] & (1 << ($0 % 8)) != 0 })
        var one = [UInt8](repeating: 0, count: 1024)
        one[first / 8] = 1 << (first % 8)
        try #require(one.withUnsafeMutableBytes { set(0, $0.count, $0.baseAddress) } == 0)
        defer { _ = saved.withUnsafeMutableBytes { set(0, $0.count, $0.baseAddress) } }
        #expect(Processors.available == 1)
        // With one processor online the two counts agree anyway; elsewhere this is the
        // difference the mask makes.
        if Processors.online > 1 { #expect(Processors.available < Processors.online) }
    }
}

@Suite struct WaitingLockTests {
    /// Four threads adding to one count, each addition a read and a write with the lock held: none
    /// is lost, and each thread's body ran while no other's did.
    @Test func threadsTakeTheLockInTurn() {
        struct State {
            var count = 0
            var inside = 0
            var overlapped = false
        }
        let lock = WaitingLock(State())
        let threads = WorkerThreads(count: 4) { _ in
            for _ in 0..<20_000 {
                lock.withLock { state in
                    state.inside += 1
                    if state.inside > 1 { state.overlapped = true }
                    let before = state.count
                    state.count = before + 1
                    state.inside -= 1
                }
            }
        }
        threads.join()
        #expect(threads.started == 4)
        #expect(lock.withLock { $0.count } == 80_000)
        #expect(!lock.withLock { $0.overlapped })
    }
}

@Suite struct CorePlacesTests {
    struct Counts {
        var working = 0
        var mostWorking = 0
        var reading = 0
        var mostReading = 0
    }

    /// Eight workers, two places: no more than two work at once, and every worker gets to work.
    @Test func atMostTheCountWorkAtOnce() {
        let places = CorePlaces(2)
        let counts = WaitingLock(Counts())
        let done = WaitingLock(Set<Int>())
        let threads = WorkerThreads(count: 8) { worker in
            places.take()
            defer { places.give() }
            for _ in 0..<200 {
                counts.withLock {
                    $0.working += 1
                    $0.mostWorking = max($0.mostWorking, $0.working)
                }
                sched_yield()
                counts.withLock { $0.working -= 1 }
            }
            done.withLock { _ = $0.insert(worker) }
        }
        threads.join()
        #expect(threads.started == 8)
        #expect(counts.withLock { $0.mostWorking } == 2)
        #expect(done.withLock { $0.count } == 8)
        #expect(places.freeCount == 2)
    }

    /// `forEachConcurrently` with `onCores` and more jobs than cores: never more indices under way
    /// at once than the cores this process may use, each index once; without it, every job's
    /// thread runs its index at once (a thumbnail's decoder each).
    @Test func jobsOnCoresTakeTurns() {
        let cores = Processors.available, jobs = 2 * Processors.available + 1
        for onCores in [true, false] {
            let counts = WaitingLock(Counts())
            let seen = WaitingLock([Int](repeating: 0, count: 3 * jobs))
            forEachConcurrently(3 * jobs, jobs: jobs, onCores: onCores) { index in
                counts.withLock {
                    $0.working += 1
                    $0.mostWorking = max($0.mostWorking, $0.working)
                }
                usleep(20_000)
                counts.withLock { $0.working -= 1 }
                seen.withLock { $0[index] += 1 }
            }
            #expect(seen.withLock { $0 }.allSatisfy { $0 == 1 })
            let most = counts.withLock { $0.mostWorking }
            if onCores {
                #expect(most <= cores, "\(most) at once on \(cores) cores")
            } else {
                #expect(most > cores, "\(most) at once on \(cores) cores")
            }
        }
    }

    /// Four workers, two places, each reading away from its place: all four read at once (each
    /// read waits until the four are in theirs, which two places alone would never allow, for 10 s at
    /// most), and
    /// after a read a worker over the count gives its place up between units, so that again at
    /// most two work at once.
    @Test func readsNeedNoPlace() {
        let places = CorePlaces(2)
        let counts = WaitingLock(Counts())
        let threads = WorkerThreads(count: 4) { _ in
            places.take()
            defer { places.give() }
            places.away {
                counts.withLock {
                    $0.reading += 1
                    $0.mostReading = max($0.mostReading, $0.reading)
                }
                // Until the four are reading (10 s at most: two places alone would never let them).
                let start = ContinuousClock.now
                while counts.withLock({ $0.mostReading }) < 4 && ContinuousClock.now - start < .seconds(10) {
                    sched_yield()
                }
                counts.withLock { $0.reading -= 1 }
            }
            // Back from the read: over the count until the end of the unit.
            places.keepToCount(beforeWaiting: {})
            counts.withLock {
                $0.working += 1
                $0.mostWorking = max($0.mostWorking, $0.working)
            }
            for _ in 0..<100 { sched_yield() }
            counts.withLock { $0.working -= 1 }
        }
        threads.join()
        #expect(counts.withLock { $0.mostReading } == 4)
        #expect(counts.withLock { $0.mostWorking } <= 2)
        #expect(places.freeCount == 2)
    }
}

@Suite struct MemoryBudgetTests {
    /// Six workers reserving 40 bytes of a budget of 100, then one asking for more than the whole
    /// budget: never more than 100 reserved at once (the larger one alone), and nothing left after.
    @Test func reservationsStayWithinTheBudget() {
        let budget = MemoryBudget(bytes: 100)
        let most = WaitingLock(0)
        forEachConcurrently(60, jobs: 6) { index in
            budget.withReservation(index == 30 ? 500 : 40) {
                most.withLock { $0 = max($0, budget.inUse) }
                for _ in 0..<20 { sched_yield() }
            }
        }
        #expect(most.withLock { $0 } == 100)
        #expect(budget.inUse == 0)
    }
}
