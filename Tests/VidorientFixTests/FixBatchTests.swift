import Foundation
import Testing
import Vidorient
import VidorientCore
import VidorientFix
import VidorientIO
import VidorientISOBMFF
import VidorientTestSupport

/// The whole fix as a library user runs it: `FixBatch` (lock, plan, journal, write, read-back)
/// and `Undo`, without the command line.
@Suite struct FixBatchTests {
    @Test func aJournaledBatchAndItsUndo() throws {
        let folder = try TemporaryFolder("batch")
        defer { folder.remove() }
        let video = try folder.copy(TestMedia.path("orient-6.mp4"), as: "v.mp4")
        let photo = try folder.copy(TestMedia.path("orient-6.jpg"), as: "p.jpg")
        let originals = try [video, photo].map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        let journal = try JournalFile(path: folder.path("fixes.jsonl"))
        let outcomes = FixBatch(journal: journal, jobs: 2).run([
            FixJob(path: video, change: .reset), FixJob(path: photo, change: .reset),
            FixJob(path: folder.path("missing.jpg"), change: .reset),
        ])
        #expect(FixSummary(outcomes).line(dryRun: false) == "fixed 2, already right 0, refused 0, failed 1")
        guard case .failed(let reason) = outcomes[2] else {
            Issue.record("\(outcomes[2])")
            return
        }
        #expect(reason == "no such file or directory")
        #expect(try Prober().inspect(video).video?.exifOrientation == 1)
        let plan = try Undo.Plan(journal: journal.path)
        let undone = Undo.run(plan, jobs: 2)
        #expect(undone.allSatisfy { $0.refusal == nil && $0.undone.count == 1 })
        #expect(try [video, photo].map { try Data(contentsOf: URL(fileURLWithPath: $0)) } == originals)
    }

    /// When `inspect` cannot read a video, the fix still stands on its box check, and says so on
    /// the result (its display-orientation SEI was not checked).
    @Test func anInspectionThatFailsIsAWarning() throws {
        let folder = try TemporaryFolder("batch")
        defer { folder.remove() }
        let video = try folder.copy(TestMedia.path("orient-6.mp4"), as: "v.mp4")
        let batch = FixBatch(jobs: 1) { path throws(InputError) in
            throw InputError(path: path, reason: "no decoder here", kind: .unsupported)
        }
        let outcome = batch.fix(FixJob(path: video, change: .reset))
        guard case .fixed(.video(let result), _, _) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(result.warnings.contains { $0.hasPrefix("inspect could not read the file (no decoder here)") })
    }

    /// A refusal deep in a planner stays a refusal: counted as refused, not failed.
    @Test func refusalsAreRefusedAndFailuresFailed() {
        #expect(FixOutcome(.unsupported("no")).isRefused)
        #expect(!FixOutcome(.malformed("bad")).isRefused)
        #expect(!FixOutcome(.io("gone")).isRefused)
    }

    /// Patches that overlap (a planning bug, or `patches` changed by hand) are an error, never an
    /// empty edit that reads as "already as asked".
    @Test func overlappingMatricesAreAnError() throws {
        var plan = try MatrixFix(try MovieStructure(path: TestMedia.path("orient-6.mp4")), change: .reset)
        #expect(try !plan.edit.isEmpty)
        plan.patches.append(plan.patches[0])
        #expect(throws: VidorientError.self) { try plan.edit }
    }
}

extension FixOutcome {
    var isRefused: Bool {
        if case .refused = self { return true }
        return false
    }
}
