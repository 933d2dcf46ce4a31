import Foundation
import Testing
import VidorientTestSupport

/// Issue 29: an audit's text, CSV and JSONL came in the order files finished, so two runs
/// differed. Sorted by path where standard output is not a pipe, or with `--sort`; `--csv --all` is
/// an inventory, one row per file; the text report ends with the folders where the problems are.
@Suite struct AuditOrderTests {
    /// Four folders of eight files each, photos and clips, some turned.
    static func library() throws -> TemporaryFolder {
        let folder = try TemporaryFolder("audit-order")
        let names = ["orient-1.jpg", "orient-6.jpg", "orient-3.mp4", "orient-1.png", "orient-8.webp", "orient-5.heic"]
        for index in 0..<32 {
            let sub = folder.url.appendingPathComponent("d\(index % 4)")
            try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
            let name = names[index % names.count]
            try FileManager.default.copyItem(
                atPath: Run.media(name), toPath: sub.appendingPathComponent("f\(31 - index)-\(name)").path)
        }
        return folder
    }

    static func paths(_ jsonl: String) -> [String] {
        jsonl.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["path"] as? String
        }
    }

    @Test(arguments: ["--jsonl", "--csv", "--json", "--info"])
    func sortedOutputIsTheSameEveryRun(format: String) throws {
        let folder = try Self.library()
        defer { folder.remove() }
        var outputs: [String] = []
        for jobs in ["4", "3"] {
            let run = try Run.vidorient(["audit", format, "--sort", "--jobs", jobs, folder.url.path])
            #expect([0, 1].contains(run.status), "\(run.stderr)")
            outputs.append(
                run.stdout.split(separator: "\n").filter { !$0.contains(" s (") && !$0.contains("seconds") }.joined(
                    separator: "\n"))
        }
        #expect(outputs[0] == outputs[1])
        if format == "--jsonl" {
            let paths = Self.paths(outputs[0])
            #expect(paths.count == 32)
            #expect(paths == paths.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        }
    }

    /// To a file, sorted without being asked; to a pipe, as files finish unless `--sort`.
    @Test func aFileIsSortedByDefault() throws {
        let folder = try Self.library()
        defer { folder.remove() }
        let out = folder.path("out.jsonl")
        let run = try Run.vidorient(
            [],
            prefix: [
                "sh", "-c", "\"$0\" audit --jsonl --jobs 4 \"$1\" > \"$2\"", Run.binary.path, folder.url.path + "/d1",
                out,
            ])
        #expect([0, 1].contains(run.status), "\(run.stderr)")
        let paths = Self.paths(try String(contentsOfFile: out, encoding: .utf8))
        #expect(paths.count == 8)
        #expect(paths == paths.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        let refused = try Run.vidorient(["audit", "--sort", "--watch", folder.url.path])
        #expect(refused.status == 64, "\(refused.stderr)")
    }

    @Test func csvAllIsAnInventory() throws {
        let folder = try Self.library()
        defer { folder.remove() }
        let run = try Run.vidorient(["audit", "--csv", "--all", folder.url.path + "/d0"])
        #expect([0, 1].contains(run.status), "\(run.stderr)")
        let rows = run.stdout.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        #expect(
            rows.first?.map(String.init) == [
                "path", "kind", "orientation", "rotation", "mirrored", "width", "height", "findings", "suggested_fix",
                "path_bytes",
            ])
        #expect(rows.count == 9, "one row per file, findings or none: \(run.stdout)")
        let inspected = try Run.vidorient(
            ["inspect", "--print", "path,kind,orientation,rotation,mirrored,width,height", folder.url.path + "/d0"])
        let expected = inspected.stdout.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        #expect(rows.dropFirst().map { $0.prefix(7).map(String.init) } == expected)
        let refused = try Run.vidorient(["audit", "--all", folder.url.path])
        #expect(refused.status == 64)
    }

    @Test func theTextReportEndsWithTheFolders() throws {
        let folder = try TemporaryFolder("audit-folders")
        defer { folder.remove() }
        for (sub, name) in [("clean", "orient-1.jpg"), ("clean", "orient-1.mp4"), ("flagged", "odd-angle-30.mp4")] {
            try FileManager.default.createDirectory(
                at: folder.url.appendingPathComponent(sub), withIntermediateDirectories: true)
            _ = try folder.copy(Run.media(name), as: "\(sub)/\(name)")
        }
        let run = try Run.vidorient(["audit", folder.url.path])
        #expect(run.status == 1, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let heading = try #require(lines.firstIndex { $0.hasPrefix("by folder") }, "\(run.stdout)")
        #expect(Array(lines[(heading + 1)...]) == ["  1/1         " + folder.path("flagged")])
    }
}
