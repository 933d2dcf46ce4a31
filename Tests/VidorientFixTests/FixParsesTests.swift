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
    @Test func aFixParsesTheMoovOnceToPlanIt() throws {
        let folder = try TemporaryFolder("parses")
        defer { folder.remove() }
        let video = try folder.copy(TestMedia.path("orient-6.mp4"), as: "v.mp4")
        let (dry, planning) = MovieParses.counting {
            FixBatch(dryRun: true, jobs: 1).fix(FixJob(path: video, change: .reset))
        }
        guard case .fixed = dry else {
            Issue.record("\(dry)")
            return
        }
        #expect(planning == 1)
        let journal = try JournalFile(path: folder.path("fixes.jsonl"))
        let (written, parses) = MovieParses.counting {
            FixBatch(journal: journal, jobs: 1).fix(FixJob(path: video, change: .reset))
        }
        guard case .fixed = written else {
            Issue.record("\(written)")
            return
        }
        // One to plan, three to read back (the copy's boxes, inspect's reading of it, the renamed file's boxes).
        #expect(parses == 4)
    }
}
