/// What a JSON decoder does not say of a text: an object that names one key twice, and how deep
/// it is nested. JSON leaves a repeated key's meaning to the reader (jq keeps the last,
/// Foundation's decoder the first), so whoever acts on it refuses it instead of guessing; and
/// Foundation's decoder calls valid JSON nested deeper than `decoderDepthLimit` "not valid".
/// Keys are compared as the text they stand for (`"p\u0061th"` is `"path"`). Text that is not
/// JSON is not judged here: the decoder refuses it.
public enum JSONStructure {
    /// The nesting Foundation's `JSONDecoder` refuses beyond.
    public static let decoderDepthLimit = 512

    /// The first key that repeats within one object, or nil.
    public static func firstRepeatedKey(in text: String) -> String? {
        Array(text.utf8).withUnsafeBufferPointer { first(in: $0) }
    }

    /// The deepest nesting of arrays and objects (0 for a bare value), strings skipped.
    public static func depth(of text: String) -> Int {
        var depth = 0
        var deepest = 0
        var inString = false
        var escaped = false
        for byte in text.utf8 {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth = max(0, depth - 1)
            default: break
            }
        }
        return deepest
    }

    /// One level of nesting: an object with the keys seen so far, or an array.
    private enum Level {
        case object(keys: Set<String>, expectingKey: Bool)
        case array
    }

    static func first(in bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var levels: [Level] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "{"): levels.append(.object(keys: [], expectingKey: true))
            case UInt8(ascii: "["): levels.append(.array)
            case UInt8(ascii: "}"), UInt8(ascii: "]"): if !levels.isEmpty { levels.removeLast() }
            case UInt8(ascii: ","):
                if case .object(let keys, _) = levels.last {
                    levels[levels.count - 1] = .object(keys: keys, expectingKey: true)
                }
            case UInt8(ascii: "\""):
                var end = index + 1
                var escaped = false
                while end < bytes.count && (escaped || bytes[end] != UInt8(ascii: "\"")) {
                    escaped = !escaped && bytes[end] == UInt8(ascii: "\\")
                    end += 1
                }
                if case .object(var keys, true) = levels.last {
                    let key = unescaped(UnsafeBufferPointer(rebasing: bytes[(index + 1)..<min(end, bytes.count)]))
                    guard keys.insert(key).inserted else { return key }
                    levels[levels.count - 1] = .object(keys: keys, expectingKey: false)
                }
                index = end
            default: break
            }
            index += 1
        }
        return nil
    }

    /// A JSON string's contents with its escapes resolved (a bad escape is kept as written).
    private static func unescaped(_ raw: UnsafeBufferPointer<UInt8>) -> String {
        guard raw.contains(UInt8(ascii: "\\")) else { return String(decoding: raw, as: UTF8.self) }
        var units: [UInt16] = []
        var out = ""
        func flushUnits() {
            out += String(decoding: units, as: UTF16.self)
            units.removeAll()
        }
        var index = 0
        var run: [UInt8] = []
        while index < raw.count {
            let byte = raw[index]
            guard byte == UInt8(ascii: "\\"), index + 1 < raw.count else {
                flushUnits()
                run.append(byte)
                index += 1
                continue
            }
            out += String(decoding: run, as: UTF8.self)
            run.removeAll()
            let next = raw[index + 1]
            index += 2
            if next == UInt8(ascii: "u"), index + 4 <= raw.count,
                let unit = UInt16(
                    String(decoding: UnsafeBufferPointer(rebasing: raw[index..<(index + 4)]), as: UTF8.self), radix: 16)
            {
                units.append(unit)
                index += 4
                continue
            }
            flushUnits()
            switch next {
            case UInt8(ascii: "n"): out += "\n"
            case UInt8(ascii: "t"): out += "\t"
            case UInt8(ascii: "r"): out += "\r"
            case UInt8(ascii: "b"): out += "\u{8}"
            case UInt8(ascii: "f"): out += "\u{c}"
            default: out += String(UnicodeScalar(next))
            }
        }
        flushUnits()
        out += String(decoding: run, as: UTF8.self)
        return out
    }
}
