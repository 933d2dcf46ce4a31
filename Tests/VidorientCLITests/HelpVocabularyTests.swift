import Foundation
import Testing
import VidorientTestSupport

/// One word per idea across every command's `--help` (issue 24): a flag that two commands share
/// says the same thing in both; the words inspect's JSON uses (`rotation`, `mirrored`) are the
/// flags' words; `-v` has one meaning; turns are spelled out ("clockwise", never "cw").
@Suite struct HelpVocabularyTests {
    static let commands = ["inspect", "thumbnail", "fix", "normalize", "audit", "report", "orientation"]

    /// Each command's help, with the top level's under "".
    static let helps: [String: String] = {
        var helps: [String: String] = [:]
        for command in [""] + commands {
            let run = try? Run.vidorient(command.isEmpty ? ["--help"] : [command, "--help"])
            helps[command] = run?.stdout ?? ""
        }
        return helps
    }()

    /// The options of one help text: each long name (or the short one when there is none) with its
    /// description, its wrapped lines joined.
    static func options(_ help: String) -> [String: String] {
        guard let start = help.range(of: "OPTIONS:") else { return [:] }
        var options: [String: String] = [:]
        var current: String?
        for line in help[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("  -") {
                let columns = line.dropFirst(2).split(separator: "  ", maxSplits: 1, omittingEmptySubsequences: true)
                let names = String(columns[0])
                current = names.matches(of: /--[a-z0-9-]+/).first.map { String($0.output) } ?? names
                options[current!] = columns.count > 1 ? columns[1].trimmingCharacters(in: .whitespaces) : ""
            } else if let name = current, line.hasPrefix("      ") {
                let text = line.trimmingCharacters(in: .whitespaces)
                options[name] = options[name]!.isEmpty ? text : options[name]! + " " + text
            } else {
                current = nil
            }
        }
        return options
    }

    /// Every command's configuration names it (`commandName:`): without it, swift-argument-parser
    /// makes the name from the type's with `String(describing:)`, whose dynamic casts scan every
    /// protocol conformance in the program, for each command on every start (a sixth of the CPU
    /// time of `fix --in-place` on a 1 GiB MP4, docs/performance.md).
    @Test func everyCommandNamesItself() throws {
        let folder = PackageFolder.sources.appendingPathComponent("VidorientCLI")
        var configured = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasSuffix(".swift") {
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            for match in text.matches(of: /static let configuration = CommandConfiguration\(\s*([a-zA-Z]+):/) {
                configured += 1
                #expect(match.output.1 == "commandName", "\(name): the configuration does not start with commandName")
            }
        }
        #expect(configured == Self.commands.count + 1)
    }

    @Test func everyHelpIsRead() {
        for command in Self.commands {
            #expect(Self.options(Self.helps[command] ?? "")["--help"] == "Show help information.", "\(command)")
        }
    }

    /// A flag two commands share means one thing, said in the same words. Where what is written
    /// differs by command (`-o`, `--dry-run`, `--thumbnails`), the words that carry the idea must
    /// be in every one.
    @Test func aSharedFlagSaysTheSameThing() {
        let perCommand = Self.commands.map { ($0, Self.options(Self.helps[$0] ?? "")) }
        var byFlag: [String: [(command: String, text: String)]] = [:]
        for (command, options) in perCommand {
            for (flag, text) in options where !["--help", "--version"].contains(flag) {
                byFlag[flag, default: []].append((command, text))
            }
        }
        let sharedIdea: [String: String] = [
            "--output": "write", "--dry-run": "write nothing", "--thumbnails": "as-stored and as-displayed thumbnails",
            "--rotation": "clockwise degrees",
        ]
        for (flag, uses) in byFlag where uses.count > 1 {
            if let idea = sharedIdea[flag] {
                for use in uses { #expect(use.text.lowercased().contains(idea), "\(flag) in \(use.command)") }
            } else {
                #expect(Set(uses.map(\.text)).count == 1, "\(flag): \(uses)")
            }
        }
        // The shared ones are shared where they appear.
        #expect(byFlag["--verbose"]?.map(\.command).sorted() == ["inspect", "thumbnail"])
        #expect(byFlag["--no-progress"].map { $0.count >= 4 } == true)
    }

    /// The words of the JSON and of `orientation` are the flags' words; the old spellings are
    /// accepted but not shown. "cw" is never written for "clockwise".
    @Test func oneWordForEachIdea() {
        for (command, help) in Self.helps {
            let words = help.split(whereSeparator: { $0.isWhitespace || $0 == "," || $0 == "(" || $0 == ")" })
            #expect(!words.contains("--rotate"), "\(command)")
            #expect(!words.contains("--mirror"), "\(command)")
            #expect(!words.contains("cw"), "\(command)")
        }
        let fix = Self.options(Self.helps["fix"] ?? "")
        #expect(fix["--rotation"] != nil && fix["--mirrored"]?.hasPrefix("With --rotation:") == true)
        let orientation = Self.options(Self.helps["orientation"] ?? "")
        #expect(orientation["--rotation"] != nil && orientation["--mirrored"]?.hasPrefix("With --rotation:") == true)
        // audit's list of info findings is --info; -v says more on stderr wherever it is.
        #expect(Self.options(Self.helps["audit"] ?? "")["--info"] != nil)
        #expect(Self.helps["audit"]?.contains("-v,") == false)
    }
}
