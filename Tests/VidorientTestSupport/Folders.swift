public import Foundation

/// Where the package and its media are, found from this file's own path.
public enum PackageFolder {
    /// The package root (this file is `Tests/VidorientTestSupport/Folders.swift`).
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    public static let sources = root.appendingPathComponent("Sources")
}

/// Real phone files beside the project (`../shared/media`, facts in its README). Tests that use
/// them are marked `.enabled(if: SharedMedia.isPresent, ...)` and skip cleanly when it is absent;
/// the files are never copied into the repository.
public enum SharedMedia {
    public static let folder = PackageFolder.root.deletingLastPathComponent().appendingPathComponent("shared/media")

    public static func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// The path when the file is there, else nil (for `#require`).
    public static func existingPath(_ name: String) -> String? {
        let path = path(name)
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    public static var isPresent: Bool { existingPath("README.md") != nil }

    /// The names of the files there, sorted (none when the folder is absent).
    public static var names: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }
}

/// A fresh folder of its own under the temporary directory, removed by `remove()`.
public struct TemporaryFolder: Sendable {
    public let url: URL

    public init(_ label: String) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "vidorient-\(label)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public var path: String { url.path }

    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Copies a file in and returns the copy's path.
    public func copy(_ source: String, as name: String) throws -> String {
        let destination = path(name)
        try FileManager.default.copyItem(atPath: source, toPath: destination)
        return destination
    }

    public func remove() { try? FileManager.default.removeItem(at: url) }
}

/// A folder of its own under the temporary directory (the caller removes it).
public func scratchFolder(_ label: String) throws -> URL { try TemporaryFolder(label).url }
