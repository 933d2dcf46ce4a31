import Foundation
import Testing
import VidorientTestSupport

/// Issue 23: SIGKILL at random moments of photo fix (JPEG, PNG, HEIC) and normalize (JPEG, PNG).
/// Each round puts the original back, starts the command, kills it after a delay drawn (with a
/// fixed seed) from zero to a little over the command's own run time, and checks that the path
/// holds the whole original or the whole result an uninterrupted run makes, never anything else.
/// A last, uninterrupted run must finish the job and leave no temporary file beside it (the
/// abandoned ones of killed runs included). `VIDORIENT_KILL_ROUNDS` sets the rounds per case
/// (24 by default, to keep `swift test` quick; a few hundred for the round in docs/hostile-input.md).
@Suite struct KillRoundTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let media: String
        let arguments: [String]
        var testDescription: String { "\(arguments[0]) \(media)" }
    }

    static let cases = [
        Case(media: "orient-6.jpg", arguments: ["fix", "--orientation", "3"]),
        Case(media: "orient-6.png", arguments: ["fix", "--orientation", "3"]),
        Case(media: "orient-6.heic", arguments: ["fix", "--orientation", "3"]),
        Case(media: "orient-6.jpg", arguments: ["normalize"]),
        Case(media: "orient-6.png", arguments: ["normalize"]),
    ]

    static let rounds = ProcessInfo.processInfo.environment["VIDORIENT_KILL_ROUNDS"].flatMap(Int.init) ?? 24

    /// Runs the command on `path`; killed with SIGKILL after `delay` µs when given. True when the
    /// signal ended it.
    static func start(_ arguments: [String], _ path: String, killAfter delay: UInt32?) throws -> Bool {
        let process = Process()
        process.executableURL = Run.binary
        process.arguments = arguments + [path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        if let delay {
            usleep(delay)
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        return process.terminationReason == .uncaughtSignal
    }

    @Test(arguments: cases)
    func killedAtRandomMomentsLosesNothing(_ test: Case) throws {
        let folder = try FixFixture.folder("kill-round")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent(test.media).path
        let original = try FixFixture.contents(Run.media(test.media))

        // What an uninterrupted run makes, and how long it takes.
        try original.write(to: URL(fileURLWithPath: path))
        let started = Date()
        #expect(try Self.start(test.arguments, path, killAfter: nil) == false)
        let runTime = Date().timeIntervalSince(started)
        let result = try FixFixture.contents(path)
        #expect(result != original, "the command changed nothing")
        #expect(try FixFixture.leftovers(folder).isEmpty)

        var generator = SplitMix64(state: test.testDescription.utf8.reduce(0x5EED) { $0 &* 31 &+ UInt64($1) })
        let longest = UInt32(min(runTime * 1.3, 2) * 1_000_000)
        var killed = 0, whole = 0, midWrite = 0, finished = 0
        for round in 0..<Self.rounds {
            // The original back, under its name, as a user would have it.
            try original.write(to: URL(fileURLWithPath: path))
            let partialsBefore = Set(try FixFixture.leftovers(folder))
            let delay = UInt32.random(in: 0...longest, using: &generator)
            if try Self.start(test.arguments, path, killAfter: delay) { killed += 1 }
            let now = try FixFixture.contents(path)
            #expect(now == original || now == result, "round \(round), killed after \(delay) µs: a mixed file")
            if now == original { whole += 1 } else { finished += 1 }
            if !Set(try FixFixture.leftovers(folder)).subtracting(partialsBefore).isEmpty { midWrite += 1 }
            let others = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
                $0 != test.media && !$0.hasSuffix(".partial")
            }
            #expect(others.isEmpty, "round \(round): \(others)")
        }
        // The next run finishes the job and sweeps what the killed ones left.
        try original.write(to: URL(fileURLWithPath: path))
        #expect(try Self.start(test.arguments, path, killAfter: nil) == false)
        #expect(try FixFixture.contents(path) == result)
        #expect(try FixFixture.leftovers(folder).isEmpty, "temporary files left after the next run")
        print(
            "kill round \(test.testDescription): \(Self.rounds) rounds, \(killed) killed (\(midWrite) leaving a temporary file), original whole \(whole), result whole \(finished), 0 mixed"
        )
    }
}
