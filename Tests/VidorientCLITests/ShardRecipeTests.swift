import Foundation
import Testing
import VidorientTestSupport

/// docs/audit.md's Kubernetes Indexed Job and Slurm array against packaging/slurm-shard-check.sh,
/// which CI runs on a real Slurm (`.ci/run`): the recipes people copy must audit with the flags the
/// check proves, so a flag changed in one and not the others fails here.
@Suite struct ShardRecipeTests {
    /// The flags of the `vidorient audit` command in `text` (from `audit` to the redirection),
    /// each flag without its value.
    static func auditFlags(_ text: String) -> [[String]] {
        text.matches(of: #/audit\s+("?\$?[A-Za-z/{}_]+"?)\s+((?:--[a-z-]+(?:\s+[^-\s>][^\s>]*)?\s*(?:\\+\s*)?)+)/#)
            .map { match in
                String(match.output.2).split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\\" })
                    .filter { $0.hasPrefix("--") }.map(String.init)
            }
    }

    @Test func theDocumentedJobsAuditWithTheFlagsTheSlurmCheckRuns() throws {
        let root = PackageFolder.root
        let check = try String(
            contentsOf: root.appendingPathComponent("packaging/slurm-shard-check.sh"), encoding: .utf8)
        let doc = try String(contentsOf: root.appendingPathComponent("docs/audit.md"), encoding: .utf8)
        let checked = try #require(Self.auditFlags(check).first { $0.contains("--shard") })
        #expect(checked == ["--jsonl", "--no-progress", "--shard"])
        let kubernetes = try #require(doc.firstRange(of: "completionMode: Indexed")).lowerBound
        let slurm = try #require(doc.firstRange(of: "#SBATCH --array")).lowerBound
        for (name, start) in [("the Kubernetes Job", kubernetes), ("the Slurm array", slurm)] {
            let flags = try #require(Self.auditFlags(String(doc[start...])).first, "\(name): no audit command")
            // `--jobs`: the recipes give it the pod's CPU limit or the task's cores (the check
            // leaves it to the default, the task's affinity); every other flag is the check's.
            #expect(flags.filter { $0 != "--jobs" } == checked, "\(name)")
        }
    }
}
