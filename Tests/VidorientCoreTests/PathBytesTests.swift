import Foundation
import Testing
import VidorientCore
import VidorientTestSupport

@Suite struct PathBytesTests {
    /// Every byte string of up to two bytes, and every three-byte string that starts with a
    /// lead byte of a multi-byte sequence, comes back exactly: no name is lost or confused.
    @Test func everyShortByteStringRoundTrips() {
        var seen = Set<[UInt8]>()
        var strings: [String: [UInt8]] = [:]
        func check(_ bytes: [UInt8]) {
            let path = String(pathBytes: bytes)
            #expect(path.pathBytes == bytes, "\(bytes)")
            // Distinct names decode to distinct paths (by their scalars: String's == is canonical).
            let key = path.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: ",")
            if let other = strings[key], other != bytes { Issue.record("\(bytes) and \(other) both decode to \(key)") }
            strings[key] = bytes
            seen.insert(bytes)
        }
        check([])
        for a in 0...255 {
            check([UInt8(a)])
            for b in 0...255 { check([UInt8(a), UInt8(b)]) }
        }
        for a in [0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5] {
            for b in 0...255 {
                for c in stride(from: 0, through: 255, by: 3) { check([UInt8(a), UInt8(b), UInt8(c)]) }
            }
        }
        #expect(seen.count > 65_536)
    }

    @Test func randomByteStringsRoundTrip() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let count = Int.random(in: 0...24, using: &generator)
            // Biased towards the bytes UTF-8 sequences are made of, so valid and broken
            // sequences (and U+F7xx) both come up often.
            let alphabet: [UInt8] = [0x61, 0x2F, 0x2E, 0x80, 0x9C, 0x9F, 0xBF, 0xC3, 0xE9, 0xEF, 0xF0, 0xFF, 0x00]
            let bytes = (0..<count).map { _ in
                Bool.random(using: &generator)
                    ? alphabet.randomElement(using: &generator)! : UInt8.random(in: 0...255, using: &generator)
            }
            #expect(String(pathBytes: bytes).pathBytes == bytes, "\(bytes)")
        }
    }

    @Test(arguments: ["plain.mp4", "été/日本.mov", "a\nb.mp4", "emoji 🎞️.jpg", ""])
    func ordinaryNamesAreUnchanged(name: String) {
        let decoded = String(pathBytes: Array(name.utf8))
        #expect(Array(decoded.unicodeScalars) == Array(name.unicodeScalars))
        #expect(!decoded.hasEscapedPathBytes)
        #expect(decoded.pathBytesHex == nil)
        #expect(decoded.pathForDisplay == name)
        #expect(decoded.pathBytes == Array(name.utf8))
    }

    @Test func invalidBytesAreEscapedAndShown() {
        let latin1: [UInt8] = Array("caf".utf8) + [0xE9] + Array(".mp4".utf8)
        let path = String(pathBytes: latin1)
        #expect(path.hasEscapedPathBytes)
        #expect(path.pathForDisplay == "caf\\xE9.mp4")
        #expect(path.escapingControlCharacters == "caf\\xE9.mp4")
        #expect(path.pathBytesHex == "636166e92e6d7034")
        #expect(String(pathBytesHex: "636166e92e6d7034")?.pathBytes == latin1)
        #expect(String(pathBytesHex: "636166E92E6D7034")?.pathBytes == latin1)
        #expect(String(pathBytesHex: "6g") == nil)
        #expect(String(pathBytesHex: "636") == nil)
        // A name that really holds U+F7E9 is carried as its three bytes, not mistaken for 0xE9.
        let privateUse = String(pathBytes: Array("\u{F7E9}".utf8))
        #expect(privateUse.pathBytes == [0xEF, 0x9F, 0xA9])
        #expect(privateUse.pathBytesHex == "ef9fa9")
        #expect(privateUse.pathForDisplay == "\\xEF\\x9F\\xA9")
        // Control characters and raw bytes together on a terminal.
        #expect(String(pathBytes: [0x1B, 0xFF, 0x0A]).escapingControlCharacters == "\\x1B\\xFF\\n")
    }

    @Test func cStringCarriesTheBytes() {
        let bytes: [UInt8] = [0xFF, 0xFE, 0x2E, 0x6A, 0x70, 0x67]
        let path = String(pathBytes: bytes)
        let passed = path.withPathCString { pointer in
            (0..<bytes.count + 1).map { UInt8(bitPattern: pointer[$0]) }
        }
        #expect(passed == bytes + [0])
    }
}

/// Keeps new code honest: a path handed to C as a Swift String would be passed as its UTF-8, so
/// a name that is not UTF-8 (held as U+F7xx characters) would name another file. Every call
/// that takes a path goes through `withPathCString`.
@Suite struct PathSystemCallTests {
    static let sources = PackageFolder.sources

    static let pathCalls = [
        "open", "stat", "lstat", "access", "unlink", "opendir", "mkdir", "rename", "realpath", "fnmatch", "mkstemp",
        "avformat_open_input", "heif_context_read_from_file", "FT_New_Face", "sqlite3_open_v2", "inotify_add_watch",
    ]

    @Test func everyPathCallTakesThePathBytes() throws {
        let files = try #require(FileManager.default.enumerator(atPath: PathSystemCallTests.sources.path))
            .compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        #expect(files.count > 40)
        let call = try Regex("(^|[^\\w.])(" + PathSystemCallTests.pathCalls.joined(separator: "|") + ")\\((?!\\))")
        for file in files where !file.hasSuffix("PathBytes.swift") {
            let lines = try String(
                contentsOf: PathSystemCallTests.sources.appendingPathComponent(file), encoding: .utf8
            )
            .split(separator: "\n", omittingEmptySubsequences: false)
            for (index, line) in lines.enumerated() where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                #expect(!line.contains(".withCString"), "\(file):\(index + 1) passes a path's UTF-8, not its bytes")
                guard line.contains(call) else { continue }
                // The call itself, or the closure it sits in (a line or two up), is given the bytes.
                let context = lines[max(0, index - 2)...index].joined(separator: "\n")
                let declared = line.contains("func ")
                #expect(declared || context.contains("withPathCString"), "\(file):\(index + 1): \(line)")
            }
        }
    }
}
