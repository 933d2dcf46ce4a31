import Foundation
import Testing
import VidorientCore
import VidorientFix
import VidorientISOBMFF
import VidorientTestSupport

/// A fix parses a movie's `moov` once to plan it: the inspection's structure is the one the
/// journal's splices and the matrix fix are planned from (it was five to seven parses: the intent,
/// the journal's plan, the fix's own plan, then the read-backs). The read-backs stay: the written
/// copy's boxes, `inspect`'s reading of it, and the renamed file's boxes.
@Suite struct FixParsesTests {
    /// How many times `batch` parsed a `moov` to reset `video`'s orientation; the fix must succeed.
    static func parses(_ batch: FixBatch, fixing video: String) throws -> Int {
        let (outcome, parses) = MovieParses.counting { batch.fix(FixJob(path: video, change: .reset)) }
        guard case .fixed = outcome else { throw FixFailed(outcome: "\(outcome)") }
        return parses
    }

    struct FixFailed: Error, CustomStringConvertible {
        var outcome: String
        var description: String { "the fix did not succeed: \(outcome)" }
    }

    @Test func aFixParsesTheMoovOnceToPlanIt() throws {
        let folder = try TemporaryFolder("parses")
        defer { folder.remove() }
        let video = try folder.copy(TestMedia.path("orient-6.mp4"), as: "v.mp4")
        #expect(try Self.parses(FixBatch(dryRun: true, jobs: 1), fixing: video) == 1)
        let journal = try JournalFile(path: folder.path("fixes.jsonl"))
        let parses = try Self.parses(FixBatch(journal: journal, jobs: 1), fixing: video)
        // One to plan, three to read back (the copy's boxes, inspect's reading of it, the renamed file's boxes).
        #expect(parses == 4)
    }
}
