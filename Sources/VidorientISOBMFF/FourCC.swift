/// A four-character code: a box type, a brand, a handler or a sample-entry format.
package struct FourCC: RawRepresentable, Hashable, Sendable, Comparable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    package var rawValue: UInt32

    package init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Four characters, each Latin-1 (so `©` is the byte 0xA9 that QuickTime's `©nam` uses).
    package init(stringLiteral text: String) {
        let scalars = Array(text.unicodeScalars)
        precondition(scalars.count == 4 && scalars.allSatisfy { $0.value < 256 }, "a FourCC is four Latin-1 characters")
        rawValue = scalars.reduce(0) { $0 << 8 | $1.value }
    }

    package var bytes: [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: rawValue >> $0) } }

    /// The four characters when they are printable (`©` included), otherwise `0x` and eight hex
    /// digits: QuickTime item lists use key indices such as 1 as box types.
    package var description: String {
        let characters = bytes
        guard characters.allSatisfy({ (0x20...0x7E).contains($0) || $0 == 0xA9 }) else {
            let hex = String(rawValue, radix: 16)
            return "0x" + String(repeating: "0", count: 8 - hex.count) + hex
        }
        return String(String.UnicodeScalarView(characters.map { Unicode.Scalar($0) }))
    }

    package static func < (lhs: FourCC, rhs: FourCC) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Big-endian fields read one after another from a box payload already in memory. Every read is
/// checked against what is left; running out throws, naming the box.
struct ByteCursor {
    let bytes: [UInt8]
    let box: FourCC
    let boxOffset: Int64
    private(set) var position = 0

    init(_ bytes: [UInt8], box: FourCC, at boxOffset: Int64) {
        self.bytes = bytes
        self.box = box
        self.boxOffset = boxOffset
    }

    var remaining: Int { bytes.count - position }

    private func tooShort(_ wanted: Int) -> ISOBMFFError {
        .malformed(
            "'\(box)' box at \(boxOffset) is too short: needs \(position + wanted) bytes of content, has \(bytes.count)"
        )
    }

    mutating func skip(_ count: Int) throws(ISOBMFFError) {
        guard count >= 0, count <= remaining else { throw tooShort(count) }
        position += count
    }

    mutating func take(_ count: Int) throws(ISOBMFFError) -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else { throw tooShort(count) }
        defer { position += count }
        return bytes[position..<position + count]
    }

    mutating func rest() -> ArraySlice<UInt8> {
        defer { position = bytes.count }
        return bytes[position...]
    }

    /// The bytes before the next NUL, which is passed over; the rest when there is none.
    mutating func upToNUL() -> ArraySlice<UInt8> {
        guard let end = bytes[position...].firstIndex(of: 0) else { return rest() }
        defer { position = end + 1 }
        return bytes[position..<end]
    }

    mutating func uint(_ width: Int) throws(ISOBMFFError) -> UInt64 {
        try take(width).reduce(0) { $0 << 8 | UInt64($1) }
    }

    mutating func uint8() throws(ISOBMFFError) -> UInt8 { UInt8(try uint(1)) }
    mutating func uint16() throws(ISOBMFFError) -> UInt16 { UInt16(try uint(2)) }
    mutating func uint32() throws(ISOBMFFError) -> UInt32 { UInt32(try uint(4)) }
    mutating func uint64() throws(ISOBMFFError) -> UInt64 { try uint(8) }
    mutating func int32() throws(ISOBMFFError) -> Int32 { Int32(bitPattern: try uint32()) }
    mutating func fourCC() throws(ISOBMFFError) -> FourCC { FourCC(rawValue: try uint32()) }
}

extension Array where Element == UInt8 {
    /// Big-endian bytes of `value`.
    init(bigEndian value: Int32) {
        let bits = UInt32(bitPattern: value)
        self = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: bits >> $0) }
    }
}
