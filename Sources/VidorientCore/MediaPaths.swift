#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Synchronization

/// Turns command-line paths into media files: files stay as given, directories are walked for
/// files with a media extension (sorted, symbolic links to directories not followed).
public enum MediaPaths {
    /// Extensions of the videos and photos vidorient reads, lowercase.
    public static let mediaExtensions: Set<String> = [
        "mp4", "m4v", "mov", "qt", "3gp", "3g2", "mkv", "webm", "avi", "mts", "m2ts", "ts", "mpg", "mpeg", "wmv",
        "flv", "jpg", "jpeg", "png", "heic", "heif", "webp", "tif", "tiff", "bmp",
    ]

    public static func isMedia(_ path: String) -> Bool {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return false }
        return mediaExtensions.contains(path[path.index(after: dot)...].lowercased())
    }

    /// Files in the order given; each directory's media files sorted by path.
    public static func expand(_ paths: [String]) -> [String] {
        var files: [String] = []
        for path in paths {
            var status = stat()
            if stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR {
                var found: [String] = []
                walk(path, into: &found)
                files += found.sorted()
            } else {
                files.append(path)
            }
        }
        return files
    }

    private static func walk(_ directory: String, into found: inout [String]) {
        guard let handle = opendir(directory) else { return }
        defer { closedir(handle) }
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name == "." || name == ".." || name.hasPrefix(".") { continue }
            let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            var status = stat()
            // lstat: a link to a directory is not walked, so a link loop cannot trap the walk.
            guard lstat(path, &status) == 0 else { continue }
            switch status.st_mode & S_IFMT {
            case S_IFDIR: walk(path, into: &found)
            case S_IFREG, S_IFLNK: if isMedia(path) { found.append(path) }
            default: continue
            }
        }
    }
}

/// Runs `body` for every index on up to `jobs` threads; each index exactly once.
public func forEachConcurrently(_ count: Int, jobs: Int, _ body: @Sendable @escaping (Int) -> Void) {
    let next = Atomic<Int>(0)
    let workers = max(1, min(jobs, count))
    DispatchQueue.concurrentPerform(iterations: workers) { _ in
        while true {
            let index = next.add(1, ordering: .relaxed).oldValue
            guard index < count else { return }
            body(index)
        }
    }
}

/// The number of processors online.
public var processorCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }
