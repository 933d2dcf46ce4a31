public import Foundation

/// What a finished process said: its exit status, standard output and standard error.
public struct ProcessOutput: Sendable {
    public let status: Int32
    public let stdout: Data
    public let stderr: String

    /// Runs `executable` with `arguments` and waits for it. Both pipes are read before waiting:
    /// a full pipe would block the child.
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
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ProcessOutput(
            status: process.terminationStatus, stdout: outData, stderr: String(decoding: errData, as: UTF8.self))
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

    public init(status: Int32, stdout: String, stderr: String) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
    }

    public static let packageRoot = PackageFolder.root

    /// `VIDORIENT_BIN` when set (the installed binary), else the one built beside the tests.
    public static var binary: URL {
        if let override = ProcessInfo.processInfo.environment["VIDORIENT_BIN"] { return URL(fileURLWithPath: override) }
        // The test bundle sits beside the products it was built with.
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("vidorient")
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

    public var json: Any? { try? JSONSerialization.jsonObject(with: Data(stdout.utf8)) }
    public var stderrLines: [Substring] { stderr.split(separator: "\n") }
}
