/// A metadata value decoded by QuickTime's well-known data types (QuickTime File Format,
/// "Well-known types"). Unknown types, and known ones of the wrong length, stay bytes.
package enum MetadataValue: Sendable, Hashable, CustomStringConvertible, Encodable {
    case text(String)
    case integer(Int64)
    case real(Double)
    /// A point or size (2 numbers), a rectangle (4) or an affine transform (9).
    case reals([Double])
    case bytes([UInt8])
    /// Larger than `maximumSize`: cover art and the like, not read.
    case omitted(byteCount: Int)

    /// Values above this size are not read: orientation and camera facts are a few bytes.
    package static let maximumSize = 64 * 1024

    package init(wellKnownType type: UInt32, bytes: ArraySlice<UInt8>) {
        let bytes = Array(bytes)
        func integer(signed: Bool) -> MetadataValue {
            guard [1, 2, 3, 4, 8].contains(bytes.count) else { return .bytes(bytes) }
            let unsigned = bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            if signed {
                // Sign-extend from the field's own width.
                let shift = UInt64(64 - 8 * bytes.count)
                return .integer(Int64(bitPattern: unsigned << shift) >> Int64(shift))
            }
            return unsigned <= UInt64(Int64.max) ? .integer(Int64(unsigned)) : .bytes(bytes)
        }
        func fixed(_ count: Int, signed: Bool) -> MetadataValue {
            bytes.count == count ? integer(signed: signed) : .bytes(bytes)
        }
        func floats(width: Int, count: Int) -> [Double]? {
            guard bytes.count == width * count else { return nil }
            return (0..<count).map { index in
                let bits = bytes[index * width..<(index + 1) * width].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                return width == 4 ? Double(Float(bitPattern: UInt32(bits))) : Double(bitPattern: bits)
            }
        }
        switch type {
        case 1, 4:  // UTF-8, UTF-8 sort
            // Less the trailing NULs; a slice, not reversed views (generic types the runtime would
            // have to build on first use: a tenth of a millisecond of `fix`'s start).
            self = .text(String(decoding: bytes[..<(bytes.lastIndex { $0 != 0 }.map { $0 + 1 } ?? 0)], as: UTF8.self))
        case 2, 5:  // UTF-16 big-endian, and its sort form
            guard bytes.count % 2 == 0 else {
                self = .bytes(bytes)
                return
            }
            let units = stride(from: 0, to: bytes.count, by: 2).map { UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]) }
            self = .text(String(decoding: units[..<(units.lastIndex { $0 != 0 }.map { $0 + 1 } ?? 0)], as: UTF16.self))
        case 21: self = integer(signed: true)
        case 22: self = integer(signed: false)
        case 23: self = floats(width: 4, count: 1).map { .real($0[0]) } ?? .bytes(bytes)
        case 24: self = floats(width: 8, count: 1).map { .real($0[0]) } ?? .bytes(bytes)
        case 65: self = fixed(1, signed: true)
        case 66: self = fixed(2, signed: true)
        case 67: self = fixed(4, signed: true)
        case 74: self = fixed(8, signed: true)
        case 75: self = fixed(1, signed: false)
        case 76: self = fixed(2, signed: false)
        case 77: self = fixed(4, signed: false)
        case 78: self = fixed(8, signed: false)
        case 70, 71: self = floats(width: 4, count: 2).map { .reals($0) } ?? .bytes(bytes)  // point, size
        case 72: self = floats(width: 4, count: 4).map { .reals($0) } ?? .bytes(bytes)  // rectangle
        case 79: self = floats(width: 8, count: 9).map { .reals($0) } ?? .bytes(bytes)  // affine transform
        default: self = .bytes(bytes)
        }
    }

    package var description: String {
        switch self {
        case .text(let text): text
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .reals(let values): values.map { String($0) }.joined(separator: ",")
        case .bytes(let bytes): bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        case .omitted(let count): "(\(count) bytes, not read)"
        }
    }

    /// A JSON string, number or array of numbers; bytes as lowercase hex; null when not read.
    /// A NaN or infinite number, which JSON cannot hold, is null.
    // Hand-written: a custom value encoding (one JSON value per case, no keys).
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .text(let text): try container.encode(text)
        case .integer(let value): try container.encode(value)
        case .real(let value): try container.encode(value.isFinite ? value : nil)
        case .reals(let values): try container.encode(values.map { $0.isFinite ? $0 : nil })
        case .bytes: try container.encode(description)
        case .omitted: try container.encodeNil()
        }
    }
}
