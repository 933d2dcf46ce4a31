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
