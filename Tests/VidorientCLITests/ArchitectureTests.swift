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
}
