public import Foundation

/// What a finished process said: its exit status, standard output and standard error.
public struct ProcessOutput: Sendable {
    public let status: Int32
    public let stdout: Data
    public let stderr: String

    /// Runs `executable` with `arguments` and waits for it. Both pipes are read at once, standard
    /// error on a thread of its own while standard output is read here: read one after the other,
    /// a child that fills the pipe not being read (64 KiB) would block, and the test with it.
    public static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String] = [:]
    ) throws -> ProcessOutput {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let errData = PipeDrain(err.fileHandleForReading)
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ProcessOutput(
            status: process.terminationStatus, stdout: outData, stderr: String(decoding: errData.wait(), as: UTF8.self))
    }
}

/// A pipe read to its end on a thread of its own; `wait` returns what it held.
public final class PipeDrain: @unchecked Sendable {
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    public init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
    }

    /// Blocks until the pipe is closed by every writer, then returns everything read.
    public func wait() -> Data {
        done.wait()
        return data
    }
}

/// Runs a tool found on PATH and returns its exit status, standard output and standard error.
public func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, stdout: Data, stderr: String) {
    let output = try ProcessOutput.run(URL(fileURLWithPath: "/usr/bin/env"), [tool] + arguments)
    return (output.status, output.stdout, output.stderr)
}

public func isInstalled(_ tool: String) -> Bool {
    (try? run("sh", ["-c", "command -v \(tool)"]).status) == 0
}

public struct ToolError: Error, CustomStringConvertible {
    public let message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}

/// The built `vidorient` binary, run as a user runs it: stdout, stderr and the exit status.
public struct Run: Sendable {
    public let status: Int32
    public let stdout: String
    public let stderr: String

    public static let packageRoot = PackageFolder.root

    /// `VIDORIENT_BIN` when set (the installed binary), else the one built beside the tests.
    public static var binary: URL {
        if let override = ProcessInfo.processInfo.environment["VIDORIENT_BIN"] { return URL(fileURLWithPath: override) }
        // The test bundle sits beside the products it was built with.
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
            "vidorient")
    }

    public static func media(_ name: String) -> String { TestMedia.path(name) }

    /// Runs the binary with `arguments`; with a `prefix` (`setpriv ...`, `sh -c`), through it.
    public static func vidorient(_ arguments: [String], environment: [String: String] = [:], prefix: [String] = [])
        throws -> Run
    {
        let output =
            prefix.isEmpty
            ? try ProcessOutput.run(binary, arguments, environment: environment)
            : try ProcessOutput.run(
                URL(fileURLWithPath: "/usr/bin/env"), prefix + [binary.path] + arguments, environment: environment)
        return Run(status: output.status, stdout: String(decoding: output.stdout, as: UTF8.self), stderr: output.stderr)
    }

    /// Runs the binary with `arguments` under `script`, which gives it a pseudo-terminal as stdout
    /// and stderr (both then in `stdout`), as a person at a terminal runs it.
    public static func inTerminal(_ arguments: [String], environment: [String: String] = [:]) throws -> Run {
        let command = ([binary.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", command, "/dev/null"]
        // The test runner's own NO_COLOR must not decide the case that expects a bar.
        var inherited = ProcessInfo.processInfo.environment
        inherited["NO_COLOR"] = nil
        process.environment = inherited.merging(environment) { $1 }
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: String(decoding: data, as: UTF8.self), stderr: "")
    }

    public var json: Any? { try? JSONSerialization.jsonObject(with: Data(stdout.utf8)) }
    public var stderrLines: [Substring] { stderr.split(separator: "\n") }
}

/// A picture as ffmpeg decodes it to 8-bit RGB (binary PPM through a pipe), for tests that compare
/// colours: `ffmpeg -i path [filter] -f image2pipe -c:v ppm -pix_fmt rgb24 -`.
public struct DecodedRGB: Sendable {
    public let width: Int, height: Int
    /// Row after row, three bytes a pixel.
    public let pixels: [UInt8]

    public init(decoding path: String, filter: [String] = []) throws {
        let arguments =
            ["-nostdin", "-v", "error", "-i", path] + filter + [
                "-f", "image2pipe", "-c:v", "ppm", "-pix_fmt", "rgb24", "-",
            ]
        let result = try run("ffmpeg", arguments)
        let data = [UInt8](result.stdout)
        // "P6\n<w> <h>\n255\n" then the pixels.
        var fields: [String] = [], position = 0
        while fields.count < 4, position < data.count {
            var field = ""
            while position < data.count, data[position] != 0x0A, data[position] != 0x20 {
                field.append(Character(Unicode.Scalar(data[position])))
                position += 1
            }
            position += 1
            fields.append(field)
        }
        guard fields.count == 4, fields[0] == "P6", let width = Int(fields[1]), let height = Int(fields[2]),
            data.count - position == width * height * 3
        else { throw ToolError(message: "ffmpeg gave no ppm for \(path): \(result.stderr)") }
        self.width = width
        self.height = height
        pixels = Array(data[position...])
    }
}

/// The outside tools tests compare against, each gated with `.enabled(if: isInstalled(…))` so that a
/// developer without one sees those tests skipped by name. CI (`.ci/run` sets
/// `VIDORIENT_REQUIRE_TOOLS=1`) holds that none is missing: `RequiredToolsTests`.
public let gatingTools = [
    "cwebp", "exiftool", "ffmpeg", "ffprobe", "heif-convert", "heif-info", "heif-thumbnailer", "jpegtran", "strace",
]
