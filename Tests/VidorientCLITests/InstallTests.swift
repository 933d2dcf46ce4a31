import Foundation
import Testing
import VidorientTestSupport

/// The completion scripts that `make install` ships come from the binary itself; these tests read
/// them back and hold them to `--help`, so a new subcommand or option cannot be left out of one.
@Suite struct CompletionScriptTests {
    /// Subcommand names under SUBCOMMANDS: in `vidorient --help`.
    static func helpSubcommands() throws -> [String] {
        let help = try Run.vidorient(["--help"])
        try #require(help.status == 0)
        let section = help.stdout.components(separatedBy: "SUBCOMMANDS:").last ?? ""
        return section.split(separator: "\n").compactMap { line in
            // "  name   abstract": a name starts at column 2; wrapped abstracts start further in.
            guard line.hasPrefix("  "), !line.hasPrefix("   "), let first = line.split(separator: " ").first else {
                return nil
            }
            return String(first)
        }.filter { $0 != "See" }
    }

    /// Every flag and option spelling in the OPTIONS: section of `vidorient help SUBCOMMAND`.
    static func helpOptions(_ subcommand: String) throws -> Set<String> {
        let help = try Run.vidorient(["help", subcommand])
        try #require(help.status == 0)
        let section = help.stdout.components(separatedBy: "OPTIONS:").last ?? ""
        var names: Set<String> = []
        for line in section.split(separator: "\n") where line.hasPrefix("  -") {
            // The spellings end where the two-space gap before the description begins.
            let head = line.dropFirst(2).components(separatedBy: "  ").first ?? ""
            // `--sort/--no-sort` is an inversion: two options.
            for word in head.split(whereSeparator: { " ,/".contains($0) }) where word.hasPrefix("-") {
                names.insert(String(word))
            }
        }
        return names
    }

    static func script(_ shell: String) throws -> String {
        let run = try Run.vidorient(["--generate-completion-script", shell])
        try #require(run.status == 0)
        return run.stdout
    }

    @Test func bashOffersExactlyTheSubcommandsOfHelp() throws {
        let subcommands = try Self.helpSubcommands()
        #expect(subcommands.count >= 5)
        let bash = try Self.script("bash")
        let root = try #require(bash.firstMatch(of: /compgen -W '([^']*)'/))
        #expect(Set(root.1.split(separator: " ").map(String.init)) == Set(subcommands + ["help"]))
    }

    @Test func bashOffersExactlyTheOptionsOfHelp() throws {
        let bash = try Self.script("bash")
        for subcommand in try Self.helpSubcommands() {
            // The function for one subcommand lists its flags and options in four arrays.
            let start = try #require(
                bash.range(of: "_vidorient_\(subcommand)() {"), "no bash function for \(subcommand)")
            let body = bash[start.upperBound...].prefix { $0 != "}" }
            var offered: Set<String> = []
            for match in body.matches(of: /(?:repeating|non_repeating)_(?:flags|options)=\(([^)]*)\)/) {
                offered.formUnion(match.1.split(separator: " ").map(String.init))
            }
            #expect(offered == (try Self.helpOptions(subcommand)), "bash completion for \(subcommand)")
        }
    }

    @Test(arguments: ["zsh", "fish"])
    func otherShellsNameEverySubcommandAndLongOption(_ shell: String) throws {
        let script = try Self.script(shell)
        for subcommand in try Self.helpSubcommands() {
            #expect(script.contains(subcommand), "\(shell) completion lacks \(subcommand)")
            for option in try Self.helpOptions(subcommand) where option.hasPrefix("--") {
                // zsh spells '--name[...]', fish "-l 'name'".
                let spelled = shell == "fish" ? "-l '\(option.dropFirst(2))'" : option
                #expect(script.contains(spelled), "\(shell) completion lacks \(subcommand) \(option)")
            }
        }
    }
}

/// The progress bar of batch work: on a terminal only, never when piped, with NO_COLOR or --quiet.
@Suite struct ProgressBarTests {
    static let inputs = ["orient-1.mp4", "orient-2.mp4", "orient-3.mp4", "orient-6.jpg", "orient-7-hevc.mov"]

    /// Runs `vidorient thumbnail` over the inputs, either piped or under `script`, which gives the
    /// child a pseudo-terminal as stdout and stderr; returns everything it printed.
    static func thumbnail(terminal: Bool, extra: [String] = [], environment: [String: String] = [:]) throws -> Run {
        let folder = try scratchFolder("progress")
        defer { try? FileManager.default.removeItem(at: folder) }
        let arguments = ["thumbnail", "--out-dir", folder.path, "--width", "32"] + extra + inputs.map(Run.media)
        var env = ["TERM": "xterm"]
        env.merge(environment) { $1 }
        if !terminal { return try Run.vidorient(arguments, environment: env) }
        return try Run.inTerminal(arguments, environment: env)
    }

    static func hasBar(_ text: String) -> Bool { text.contains("] \(inputs.count)/\(inputs.count)") }

    @Test func aTerminalShowsTheBarAndClearsIt() throws {
        let run = try Self.thumbnail(terminal: true)
        #expect(run.status == 0)
        #expect(Self.hasBar(run.stdout))
        // Cleared before the results are printed: the erase comes after the last bar.
        let lastBar = try #require(run.stdout.range(of: "] \(Self.inputs.count)/", options: .backwards))
        #expect(run.stdout[lastBar.upperBound...].contains("\u{1B}[2K"))
    }

    @Test func pipedThereIsNone() throws {
        let run = try Self.thumbnail(terminal: false)
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty)
        #expect(!run.stdout.contains("\r") && !run.stdout.contains("\u{1B}"))
        #expect(run.stdout.split(separator: "\n").count == Self.inputs.count)
    }

    // `--no-progress`, as every other command says it, and `-q/--quiet`, as thumbnail first did.
    @Test(arguments: [
        (["--quiet"], [:]), (["-q"], [:]), (["--no-progress"], [:]), ([], ["NO_COLOR": "1"]), ([], ["TERM": "dumb"]),
    ])
    func aTerminalWithQuietOrNoColorHasNone(extra: [String], environment: [String: String]) throws {
        let run = try Self.thumbnail(terminal: true, extra: extra, environment: environment)
        #expect(run.status == 0)
        #expect(!Self.hasBar(run.stdout))
        #expect(!run.stdout.contains("\u{1B}"))
    }
}

@Suite struct CaptionFontTests {
    @Test func aFontThatDoesNotLoadIsSaidOnceAndThePictureIsStillWritten() throws {
        let folder = try scratchFolder("font")
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("sheet.png").path
        let run = try Run.vidorient(
            ["thumbnail", Run.media("orient-6.mp4"), "--grid", "2x2", "--width", "80", "-o", out],
            environment: ["VIDORIENT_FONT": "/nonexistent/font.ttf"])
        #expect(run.status == 0)
        #expect(
            run.stderrLines == [
                "vidorient: could not load font '/nonexistent/font.ttf' (VIDORIENT_FONT): writing pictures without captions"
            ])
        #expect(run.stdout.contains("(172x108)"))  // 2x2 tiles of 80x48 and 4-pixel gaps, no band
    }

    /// The old bitmap font stopped the program on a character whose capital is two letters (ß).
    @Test func unicodeFileNamesAreCaptioned() throws {
        let folder = try scratchFolder("unicode")
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("Straße – été Ωμέγα.mp4").path
        try FileManager.default.copyItem(atPath: Run.media("orient-6.mp4"), toPath: input)
        for extra in [["--grid", "2x2", "--width", "80"], ["--compare"]] {
            let out = folder.appendingPathComponent("out.png").path
            let run = try Run.vidorient(["thumbnail", input, "-o", out] + extra)
            #expect(run.status == 0)
            #expect(run.stderr.isEmpty)
            #expect(FileManager.default.fileExists(atPath: out))
        }
    }

    @Test func withTheSystemFontThereIsACaptionBand() throws {
        let folder = try scratchFolder("font")
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("sheet.png").path
        let run = try Run.vidorient([
            "thumbnail", Run.media("orient-6.mp4"), "--grid", "2x2", "--width", "80", "-o", out,
        ])
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty)
        #expect(!run.stdout.contains("(172x108)"))
    }
}
