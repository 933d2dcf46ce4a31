import Foundation
import Testing
import VidorientTestSupport

/// docs/ARCHITECTURE.md's table of targets is held to Package.swift and to the sources, as
/// docs/json.md is held to the JSON: each Swift target's "may import" column names exactly the
/// dependencies Package.swift declares for it, and exactly the modules its sources import (a
/// dependency no file imports, or an import Package.swift does not declare, fails).
@Suite struct ArchitectureTests {
    /// Modules of the system and the toolchain, which no manifest declares.
    static let system: Set<String> = [
        "Glibc", "Musl", "Dispatch", "Synchronization", "FoundationEssentials", "Foundation",
    ]

    /// `target name → its dependencies` from the table's rows: "| `Name` | `A`, `B` | …".
    static func documented() throws -> [String: Set<String>] {
        let text = try String(
            contentsOf: PackageFolder.root.appendingPathComponent("docs/ARCHITECTURE.md"), encoding: .utf8)
        var table: [String: Set<String>] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count > 3 else { continue }
            table[cells[1].replacingOccurrences(of: "`", with: "")] = Set(ticked(cells[2]))
        }
        return table
    }

    /// `target name → its dependencies` from Package.swift's `.target(`/`.executableTarget(` calls.
    static func declared() throws -> [String: Set<String>] {
        let text = try String(contentsOf: PackageFolder.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        var targets: [String: Set<String>] = [:]
        let calls =
            text.components(separatedBy: "Target(").dropFirst() + text.components(separatedBy: ".target(").dropFirst()
        for call in calls {
            // The call's own text: up to the next target (or the end of the list).
            let body = call.components(separatedBy: ".target(").first!.components(separatedBy: "Target(").first!
            guard let name = quoted(body.components(separatedBy: "name:").dropFirst().first ?? "").first else {
                continue
            }
            guard let list = body.components(separatedBy: "dependencies:").dropFirst().first else {
                targets[name] = []
                continue
            }
            let dependencies = list.components(separatedBy: "]").first ?? ""
            // A product is named by its module: `.product(name: "ArgumentParser", …)`.
            targets[name] = Set(quoted(dependencies).filter { $0 != "swift-argument-parser" })
        }
        return targets
    }

    /// The modules a target's Swift files import, the system's left out.
    static func imported(_ target: String) throws -> Set<String> {
        let folder = PackageFolder.sources.appendingPathComponent(target)
        var modules: Set<String> = []
        for case let file as String in FileManager.default.enumerator(atPath: folder.path) ?? .init()
        where file.hasSuffix(".swift") {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ").map(String.init)
                guard let at = words.firstIndex(of: "import"), at + 1 < words.count,
                    words[..<at].allSatisfy({ $0.hasPrefix("@") || ["public", "package", "internal"].contains($0) })
                else { continue }
                modules.insert(String(words[at + 1].split(separator: ".").first!))
            }
        }
        return modules.subtracting(system)
    }

    static func ticked(_ text: String) -> [String] {
        text.components(separatedBy: "`").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
    }

    static func quoted(_ text: String) -> [String] {
        text.components(separatedBy: "\"").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
    }

    /// The Swift targets under Sources/ (C and C++ targets have no `.swift` file).
    static func swiftTargets() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: PackageFolder.sources.path).filter { target in
            FileManager.default.enumerator(atPath: PackageFolder.sources.appendingPathComponent(target).path)?
                .contains { ($0 as? String)?.hasSuffix(".swift") == true } == true
        }.sorted()
    }

    @Test func theParsersSeeEveryTarget() throws {
        let targets = try Self.swiftTargets()
        #expect(targets.contains("Vidorient") && targets.contains("VidorientCLI") && targets.count >= 12)
        let declared = try Self.declared()
        #expect(declared["VidorientCore"] == [])
        #expect(declared["VidorientCLI"]?.contains("ArgumentParser") == true)
        #expect(declared["VidorientContent"] == ["VidorientCore", "CContentEngine"])
    }

    @Test func theTableIsPackageSwift() throws {
        let documented = try Self.documented()
        let declared = try Self.declared()
        for target in try Self.swiftTargets() {
            #expect(documented[target] != nil, "docs/ARCHITECTURE.md has no row for \(target)")
            #expect(
                documented[target] == declared[target],
                "\(target): the table says \(documented[target]?.sorted() ?? []), Package.swift \(declared[target]?.sorted() ?? [])"
            )
        }
    }

    @Test func packageSwiftIsWhatTheSourcesImport() throws {
        let declared = try Self.declared()
        for target in try Self.swiftTargets() {
            let imported = try Self.imported(target)
            #expect(
                imported == declared[target],
                "\(target): the sources import \(imported.sorted()), Package.swift declares \(declared[target]?.sorted() ?? [])"
            )
        }
    }

    /// The readers' entry points and the format's sniff: what decides which reader answers a file.
    static let readerEntryPoints = [
        "PhotoReader.", "MediaFormat(signature", "MovieDescription.", "MovieStructure(", "FFmpegProbe.",
        "ProbedFile(", "OpenVideo(", "PhotoFrames(",
    ]

    /// Calls above the readers that are not `Prober`'s, each with why. The fix still reads its own
    /// bytes under its lock, to plan and to read back (issue 30 item 2 turns it into a plan of
    /// the one inspection); a line here that no longer matches fails, so the list only shrinks.
    static let readerCallsAllowed: [String: [String: String]] = [
        "VidorientFix/PhotoFix.swift": [
            "MediaFormat(signature": "the tag fix plans from the bytes it read under the lock",
            "PhotoReader.": "the tag fix's turn relative to what it read, and its read-back",
        ],
        "VidorientFix/VideoFix.swift": ["MovieStructure(": "the matrix fix plans and reads back under the lock"],
        "VidorientFix/FixBatch.swift": ["MovieStructure(": "the journal's planned splices, under the lock"],
    ]

    /// One place decides which reader answers a file: `Prober` (Vidorient/Prober.swift). Above
    /// the readers (the front door, the fix, the audit, the program) no other file sniffs a
    /// file's format, calls a reader's entry point or opens a file's pictures: thumbnails, the
    /// content judge, normalize and fix take what `Prober` read (`InspectedFile`, `PictureSource`).
    @Test func oneReaderChain() throws {
        var seen: Set<String> = []
        for target in ["Vidorient", "VidorientFix", "VidorientAudit", "VidorientCLI"] {
            let folder = PackageFolder.sources.appendingPathComponent(target)
            for case let file as String in FileManager.default.enumerator(atPath: folder.path) ?? .init()
            where file.hasSuffix(".swift") {
                let name = "\(target)/\(file)"
                guard name != "Vidorient/Prober.swift" else { continue }
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                // The code without comments, each line trimmed and joined: a call split over lines is seen.
                let code = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                    .filter { !$0.hasPrefix("//") }.joined()
                for entry in Self.readerEntryPoints where code.contains(entry) {
                    let allowed = Self.readerCallsAllowed[name]?[entry] != nil
                    #expect(allowed, "\(name) calls \(entry): only Prober.swift decides which reader answers a file")
                    if allowed { seen.insert("\(name) \(entry)") }
                }
            }
        }
        for (name, entries) in Self.readerCallsAllowed {
            for entry in entries.keys {
                #expect(seen.contains("\(name) \(entry)"), "\(name) no longer calls \(entry): take it off the list")
            }
        }
    }

    /// The rule's own check: a call added beside `Prober` is seen (the scan reads the files it names).
    @Test func oneReaderChainSeesACall() throws {
        let text = try String(
            contentsOf: PackageFolder.sources.appendingPathComponent("Vidorient/Prober.swift"), encoding: .utf8)
        for entry in ["PhotoReader.", "MovieDescription.", "ProbedFile(", "OpenVideo(", "PhotoFrames("] {
            #expect(text.contains(entry), "Prober.swift no longer calls \(entry): the rule's list is stale")
        }
    }

    /// One writer for every file we create or replace: `PendingFile` (VidorientIO/SafeWrite.swift)
    /// is the only code that renames a file into place; `EditWriter`, `OutputFile` and
    /// `HTMLReport` write through it. The audit cache moves a damaged database aside (not a file
    /// written), which is its own rename.
    @Test func oneSafeWriter() throws {
        let allowed = ["VidorientIO/SafeWrite.swift", "VidorientAudit/AuditCache.swift"]
        var renaming: [String] = []
        for case let file as String in FileManager.default.enumerator(atPath: PackageFolder.sources.path) ?? .init()
        where file.hasSuffix(".swift") {
            let text = try String(contentsOf: PackageFolder.sources.appendingPathComponent(file), encoding: .utf8)
            let code = text.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
            if code.contains(where: { $0.contains("rename(") }) { renaming.append(file) }
        }
        #expect(renaming.sorted() == allowed.sorted(), "files that rename a file into place")
    }

    /// The command layer parses, prints and exits; what it prints is made by the libraries
    /// (`ReportText`, `AnyFixResult.text`, `NormalizeResult.text`, …), where a library user gets
    /// the same words (issue 30: at most 1,600 lines; it was 2,008).
    @Test func theCommandLayerStaysThin() throws {
        let folder = PackageFolder.sources.appendingPathComponent("VidorientCLI")
        var lines = 0
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasSuffix(".swift") {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            lines += text.split(separator: "\n", omittingEmptySubsequences: false).count - 1
        }
        #expect(lines <= 1600, "Sources/VidorientCLI has \(lines) lines")
    }
}
