#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// A path on Linux is bytes, and a file name need not be UTF-8 (old NAS shares, Windows-1252
// zip extractions). vidorient keeps `String` as its path type and makes the mapping between
// the two lossless, the way Python's `surrogateescape` does, so every name can be listed,
// opened, reported and found again:
//
// - bytes → String: UTF-8 is decoded; each byte that is not part of a valid UTF-8 sequence,
//   and each byte of a valid sequence that encodes a character in U+F700…U+F7FF, becomes the
//   private-use character U+F700 + byte.
// - String → bytes: each U+F7xx character becomes the single byte xx, every other character
//   its UTF-8.
//
// bytes → String → bytes is the identity for every byte string, and a name that is valid
// UTF-8 without U+F7xx characters (every ordinary name) is the same String as before. Every
// system call that takes a path goes through `withPathCString`, never `withCString`.

/// The first of the 256 private-use characters that stand for single bytes in a path.
private let escapeBase: UInt32 = 0xF700

extension String {
    /// A C library's message written into a buffer we gave it: the characters up to the first NUL,
    /// as UTF-8 (a byte that is not becomes U+FFFD). Not for paths: `init(pathBytes:)` is.
    public init(cMessage buffer: some Collection<CChar>) {
        self = String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The path named by `bytes`, decoded losslessly (see above).
    public init(pathBytes bytes: some Collection<UInt8>) {
        // The common case first: valid UTF-8 that has no character of the escape range.
        if let text = String(validating: bytes, as: UTF8.self), !text.hasEscapedPathBytes {
            self = text
            return
        }
        let bytes = Array(bytes)
        var scalars = String.UnicodeScalarView()
        var index = 0
        while index < bytes.count {
            if let (scalar, length) = decodeUTF8(bytes, at: index), !(0xF700...0xF7FF).contains(scalar.value) {
                scalars.append(scalar)
                index += length
            } else {
                // An invalid byte, or the first byte of a sequence for U+F7xx: each of that
                // sequence's bytes is escaped on its own as the loop goes on.
                scalars.append(Unicode.Scalar(escapeBase + UInt32(bytes[index]))!)
                index += 1
            }
        }
        self = String(scalars)
    }

    /// The bytes this path names: the inverse of `init(pathBytes:)`.
    public var pathBytes: [UInt8] {
        guard hasEscapedPathBytes else { return Array(utf8) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        for scalar in unicodeScalars {
            if (0xF700...0xF7FF).contains(scalar.value) {
                bytes.append(UInt8(scalar.value - escapeBase))
            } else {
                bytes.append(contentsOf: UTF8.encode(scalar)!)
            }
        }
        return bytes
    }

    /// Whether the path holds bytes that are not (or stand for characters that are not) plain
    /// UTF-8 text: then `pathBytes` differs from `utf8`, and machine output carries the bytes.
    public var hasEscapedPathBytes: Bool {
        // Nearly every path holds no 0xEF byte at all: one look at each byte (the walk asks this
        // of every file it stats, so it is a measurable part of a warm audit).
        if let plain = utf8.withContiguousStorageIfAvailable({
            $0.isEmpty || memchr($0.baseAddress!, 0xEF, $0.count) == nil
        }), plain {
            return false
        }
        // U+F700…U+F7FF is EF 9C 80 … EF 9F BF in UTF-8: a byte scan, with no decoding.
        var previous: (UInt8, UInt8) = (0, 0)
        for byte in utf8 {
            if previous.0 == 0xEF, (0x9C...0x9F).contains(previous.1), (0x80...0xBF).contains(byte) { return true }
            previous = (previous.1, byte)
        }
        return false
    }

    /// Calls `body` with the path's bytes as a NUL-terminated C string: how every system call
    /// (open, stat, rename, opendir, FFmpeg, libheif, inotify, SQLite) is given a path.
    /// Inlinable, so that a caller in another module gets a copy made for its types: the generic
    /// one asked the Swift runtime for `Result`'s type metadata twice a call, a lookup in a table
    /// every thread shares (40,000 in a warm audit of 20,000 files).
    @inlinable public func withPathCString<Result, Failure: Error>(
        _ body: (UnsafePointer<CChar>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        // Plain text (nearly every path): the string's own NUL-terminated UTF-8, not a copy.
        guard hasEscapedPathBytes else {
            let result: Swift.Result<Result, Failure> = withCString { chars in
                do throws(Failure) { return .success(try body(chars)) } catch { return .failure(error) }
            }
            return try result.get()
        }
        var bytes = pathBytes
        bytes.append(0)
        let result: Swift.Result<Result, Failure> = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                do throws(Failure) { return .success(try body(chars.baseAddress!)) } catch { return .failure(error) }
            }
        }
        return try result.get()
    }

    /// The path's bytes in lowercase hex when they are not plain UTF-8 text (`hasEscapedPathBytes`),
    /// nil otherwise: the `path_bytes` value of the JSON and CSV outputs.
    public var pathBytesHex: String? {
        guard hasEscapedPathBytes else { return nil }
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        for byte in pathBytes {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: hex, as: UTF8.self)
    }

    /// The path as it is shown in machine output's `path`: each byte that is not plain UTF-8
    /// text as `\xHH` (uppercase hex, as the terminal escapes), everything else as it is.
    public var pathForDisplay: String {
        guard hasEscapedPathBytes else { return self }
        var result = String.UnicodeScalarView()
        for scalar in unicodeScalars {
            if (0xF700...0xF7FF).contains(scalar.value) {
                result.append(contentsOf: hexEscape(UInt8(scalar.value - escapeBase)).unicodeScalars)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }

    /// The path named by hex digits, as `path_bytes` carries them; nil when they are not hex.
    public init?(pathBytesHex hex: String) {
        let digits = Array(hex.utf8)
        guard digits.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        for pair in stride(from: 0, to: digits.count, by: 2) {
            guard let high = hexValue(digits[pair]), let low = hexValue(digits[pair + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        self.init(pathBytes: bytes)
    }
}

/// `\xHH`, uppercase: how a byte is shown where text cannot hold it.
func hexEscape(_ byte: UInt8) -> String {
    let hex = String(byte, radix: 16, uppercase: true)
    return "\\x" + (hex.count < 2 ? "0" : "") + hex
}

private func hexValue(_ digit: UInt8) -> UInt8? {
    switch digit {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
    default: nil
    }
}

/// The scalar of the well-formed UTF-8 sequence at `index` and its length, or nil when the
/// bytes there are not one (overlong forms, surrogates and values past U+10FFFF included).
private func decodeUTF8(_ bytes: [UInt8], at index: Int) -> (Unicode.Scalar, Int)? {
    let first = bytes[index]
    if first < 0x80 { return (Unicode.Scalar(first), 1) }
    let length: Int
    var value: UInt32
    switch first {
    case 0xC2...0xDF:
        length = 2
        value = UInt32(first & 0x1F)
    case 0xE0...0xEF:
        length = 3
        value = UInt32(first & 0x0F)
    case 0xF0...0xF4:
        length = 4
        value = UInt32(first & 0x07)
    default: return nil
    }
    guard index + length <= bytes.count else { return nil }
    for offset in 1..<length {
        let byte = bytes[index + offset]
        guard byte & 0xC0 == 0x80 else { return nil }
        value = value << 6 | UInt32(byte & 0x3F)
    }
    // Overlong forms, which the lead-byte ranges above do not already exclude.
    guard (length == 3 && value >= 0x800) || (length == 4 && value >= 0x10000) || length == 2 else { return nil }
    guard let scalar = Unicode.Scalar(value) else { return nil }  // surrogates, beyond U+10FFFF
    return (scalar, length)
}

// Machine output (JSON, JSONL, CSV) carries a path as two keys: `KEY`, the display form
// (`pathForDisplay`: each byte that is not UTF-8 text as `\xHH`), and `KEY_bytes`, the exact
// bytes in lowercase hex when they differ from the display form's UTF-8, null otherwise. A
// consumer takes `KEY_bytes` when it is not null, `KEY` otherwise (docs/json.md). The rule is
// written once for each direction: `ReportedPath` (which `JSONText` writes as the two keys) and
// `Decoder.decodePath(forKey:)`.

/// A path property of a machine-output record: `@ReportedPath var path: String` (or `String?`).
/// `JSONText` writes it as two keys, `path` and `path_bytes` (see above), so a record with path
/// properties keeps its synthesized `Encodable`. Another encoder (Foundation's `JSONEncoder`) gets
/// the display form alone under `KEY`. Reading back is `Decoder.decodePath(forKey:)`: a display
/// form is not the path, so there is no `Decodable` here.
@propertyWrapper
public struct ReportedPath<Value: PathValue>: Sendable, Hashable, Encodable, PathPair {
    public var wrappedValue: Value

    public init(wrappedValue: Value) {
        self.wrappedValue = wrappedValue
    }

    var display: String? { wrappedValue.pathValue?.pathForDisplay }
    var bytesHex: String? { wrappedValue.pathValue?.pathBytesHex }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(display)
    }
}

/// What a `ReportedPath` can hold: a path, or none.
public protocol PathValue: Sendable, Hashable {
    var pathValue: String? { get }
}

extension String: PathValue {
    public var pathValue: String? { self }
}

extension Optional: PathValue where Wrapped == String {
    public var pathValue: String? { self }
}

/// A `ReportedPath` whatever it holds, for `JSONText`'s keyed container.
protocol PathPair {
    var display: String? { get }
    var bytesHex: String? { get }
}

extension KeyedEncodingContainer {
    /// Encodes `path` as a `ReportedPath` under `key` (and `KEY_bytes`): for hand-written encoders.
    public mutating func encodePath(_ path: String?, forKey key: Key) throws {
        try encode(ReportedPath(wrappedValue: path), forKey: key)
    }
}

extension Decoder {
    /// The path a `ReportedPath` wrote under `key`: from `KEY_bytes` when that is set.
    public func decodePath(forKey key: some CodingKey) throws -> String {
        let c = try container(keyedBy: NamedKey.self)
        return try decodeBytes(c, key) ?? c.decode(String.self, forKey: NamedKey(key.stringValue))
    }

    /// As `decodePath(forKey:)`, nil when the key is absent or null.
    public func decodePathIfPresent(forKey key: some CodingKey) throws -> String? {
        let c = try container(keyedBy: NamedKey.self)
        return try decodeBytes(c, key) ?? c.decodeIfPresent(String.self, forKey: NamedKey(key.stringValue))
    }

    private func decodeBytes(_ c: KeyedDecodingContainer<NamedKey>, _ key: some CodingKey) throws -> String? {
        let bytesKey = NamedKey(key.stringValue + "_bytes")
        guard let hex = try c.decodeIfPresent(String.self, forKey: bytesKey) else { return nil }
        guard let path = String(pathBytesHex: hex) else {
            throw DecodingError.dataCorruptedError(forKey: bytesKey, in: c, debugDescription: "not hex digits")
        }
        // No file has an empty name: an edited line, never one vidorient wrote.
        guard !path.isEmpty else {
            throw DecodingError.dataCorruptedError(forKey: bytesKey, in: c, debugDescription: "empty")
        }
        return path
    }
}

/// A key named at run time (`path_bytes` from `path`).
struct NamedKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
