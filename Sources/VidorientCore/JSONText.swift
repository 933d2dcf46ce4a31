/// Encodes `Encodable` values as JSON text with sorted keys, straight into a string: every
/// machine-readable output goes through here. Foundation's `JSONEncoder` builds an intermediate
/// tree and boxes every value, which made it most of an audit's run time.
///
/// THE rule of machine output lives here, once: every key of every report is present; absent is
/// `null`. `encodeIfPresent`, which synthesized `Encodable` calls for each optional property, writes
/// `null` for nil instead of leaving the key out (as `JSONEncoder` does). So a report type needs no
/// hand-written `encode(to:)` to keep its keys: synthesized conformance and `CodingKeys` with the
/// snake_case names are enough. Synthesized `init(from:)` reads such output back (`decodeIfPresent`
/// takes `null` as nil), with `JSONDecoder` too. The other rule, "a path carries its bytes", is
/// written here too: a `ReportedPath` property becomes two keys (PathBytes.swift).
public struct JSONText: Sendable {
    public var pretty: Bool

    public init(pretty: Bool = true) {
        self.pretty = pretty
    }

    public func encode(_ value: some Encodable) throws -> String {
        let root = Node.Slot()
        try value.encode(to: NodeEncoder(slot: root, codingPath: []))
        var out = ""
        write(root.node ?? .null, into: &out, indent: 0)
        return out
    }

    private func write(_ node: Node, into out: inout String, indent: Int) {
        switch node {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .number(let text): out += text
        case .string(let text): JSONText.quote(text, into: &out)
        case .array(let box):
            let slots = box.items
            guard !slots.isEmpty else {
                out += "[]"
                return
            }
            out += "["
            for (index, slot) in slots.enumerated() {
                if index > 0 { out += "," }
                if pretty { newline(&out, indent + 1) }
                write(slot.node ?? .null, into: &out, indent: indent + 1)
            }
            if pretty { newline(&out, indent) }
            out += "]"
        case .object(let box):
            guard !box.members.isEmpty else {
                out += "{}"
                return
            }
            out += "{"
            // Sorted by key, as JSONEncoder's .sortedKeys: stable output to diff and cache.
            for (index, member) in box.members.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { out += "," }
                if pretty { newline(&out, indent + 1) }
                JSONText.quote(member.key, into: &out)
                out += pretty ? ": " : ":"
                write(member.slot.node ?? .null, into: &out, indent: indent + 1)
            }
            if pretty { newline(&out, indent) }
            out += "}"
        }
    }

    private func newline(_ out: inout String, _ indent: Int) {
        out += "\n"
        out += String(repeating: "  ", count: indent)
    }

    static func quote(_ text: String, into out: inout String) {
        out += "\""
        // Most strings need no escaping: append them whole.
        if !text.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            out += text
            out += "\""
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    /// A JSON number: whole values without a fraction (90, not 90.0), others in Swift's
    /// shortest round-tripping form. NaN and infinity have no JSON form and are refused.
    static func number(_ value: Double, codingPath: [any CodingKey]) throws -> String {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: codingPath, debugDescription: "\(value) is not a JSON number"))
        }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}

/// The tree built while encoding. Slots are classes so that nested containers can be filled in
/// after they are handed out, as `Encoder` requires.
enum Node {
    case null, bool(Bool), number(String), string(String), array(ArrayBox), object(ObjectBox)

    final class Slot {
        var node: Node?
        init(_ node: Node? = nil) { self.node = node }
    }

    /// Reference boxes, so that adding a member does not copy the members already there.
    final class ArrayBox {
        var items: [Slot] = []
    }

    final class ObjectBox {
        var members: [(key: String, slot: Slot)] = []
    }
}

private struct NodeEncoder: Encoder {
    let slot: Node.Slot
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = slot.node {} else { slot.node = .object(Node.ObjectBox()) }
        return KeyedEncodingContainer(Keyed<Key>(slot: slot, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = slot.node {} else { slot.node = .array(Node.ArrayBox()) }
        return Unkeyed(slot: slot, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        Single(slot: slot, codingPath: codingPath)
    }
}

/// Puts one value into a slot: primitives directly, anything else through its `encode(to:)`.
private func store(_ value: some Encodable, in slot: Node.Slot, codingPath: [any CodingKey]) throws {
    switch value {
    case let text as String: slot.node = .string(text)
    case let flag as Bool: slot.node = .bool(flag)
    case let number as Double: slot.node = .number(try JSONText.number(number, codingPath: codingPath))
    case let number as Float: slot.node = .number(try JSONText.number(Double(number), codingPath: codingPath))
    case let number as Int: slot.node = .number(String(number))
    case let number as Int64: slot.node = .number(String(number))
    case let number as Int32: slot.node = .number(String(number))
    case let number as UInt32: slot.node = .number(String(number))
    case let number as UInt64: slot.node = .number(String(number))
    case let number as UInt8: slot.node = .number(String(number))
    // The other integers (Int8, Int16, UInt, UInt16, Int128, UInt128): their own `encode(to:)`
    // asks a single-value container to encode them, which would come back here.
    case let number as any BinaryInteger: slot.node = .number(String(describing: number))
    default: try value.encode(to: NodeEncoder(slot: slot, codingPath: codingPath))
    }
    // A value that wrote nothing (an empty custom encode) is null, as JSONEncoder has it.
    if slot.node == nil { slot.node = .null }
}

private struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let slot: Node.Slot
    let codingPath: [any CodingKey]

    private func child(_ key: Key) -> Node.Slot { child(named: key.stringValue) }

    private func child(named name: String) -> Node.Slot {
        guard case .object(let box) = slot.node else { fatalError("keyed container over a non-object") }
        // Encoding the same key twice replaces the value, as JSONEncoder does.
        if let existing = box.members.first(where: { $0.key == name }) { return existing.slot }
        let child = Node.Slot()
        box.members.append((name, child))
        return child
    }

    mutating func encodeNil(forKey key: Key) throws { child(key).node = .null }

    mutating func encode(_ value: some Encodable, forKey key: Key) throws {
        // A path is two keys (`ReportedPath`, PathBytes.swift): its display form, and its bytes.
        if let path = value as? any PathPair {
            child(key).node = path.display.map(Node.string) ?? .null
            child(named: key.stringValue + "_bytes").node = path.bytesHex.map(Node.string) ?? .null
            return
        }
        try store(value, in: child(key), codingPath: codingPath + [key])
    }

    // THE rule (see `JSONText`): an absent value is `null` under its key, never a missing key. Each
    // overload is written out: the protocol's own defaults, which leave the key out, would
    // otherwise be the ones called.
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try encodeOrNull(value, forKey: key) }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try encodeOrNull(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try encodeOrNull(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try encodeOrNull(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try encodeOrNull(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try encodeOrNull(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try encodeOrNull(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try encodeOrNull(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try encodeOrNull(value, forKey: key) }
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encodeIfPresent(_ value: Int128?, forKey key: Key) throws { try encodeOrNull(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try encodeOrNull(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try encodeOrNull(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try encodeOrNull(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try encodeOrNull(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try encodeOrNull(value, forKey: key) }
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func encodeIfPresent(_ value: UInt128?, forKey key: Key) throws { try encodeOrNull(value, forKey: key) }
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        try encodeOrNull(value, forKey: key)
    }

    private mutating func encodeOrNull(_ value: (some Encodable)?, forKey key: Key) throws {
        guard let value else { return try encodeNil(forKey: key) }
        try encode(value, forKey: key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        NodeEncoder(slot: child(key), codingPath: codingPath + [key]).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        NodeEncoder(slot: child(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { NodeEncoder(slot: slot, codingPath: codingPath) }
    mutating func superEncoder(forKey key: Key) -> any Encoder {
        NodeEncoder(slot: child(key), codingPath: codingPath + [key])
    }
}

private struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { String(intValue ?? 0) }
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
}

private struct Unkeyed: UnkeyedEncodingContainer {
    let slot: Node.Slot
    let codingPath: [any CodingKey]

    var count: Int {
        guard case .array(let box) = slot.node else { return 0 }
        return box.items.count
    }

    private func append() -> Node.Slot {
        guard case .array(let box) = slot.node else { fatalError("unkeyed container over a non-array") }
        let child = Node.Slot()
        box.items.append(child)
        return child
    }

    mutating func encodeNil() throws { append().node = .null }

    mutating func encode(_ value: some Encodable) throws {
        let index = count
        try store(value, in: append(), codingPath: codingPath + [IndexKey(index)])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        NodeEncoder(slot: append(), codingPath: codingPath).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        NodeEncoder(slot: append(), codingPath: codingPath).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { NodeEncoder(slot: append(), codingPath: codingPath) }
}

private struct Single: SingleValueEncodingContainer {
    let slot: Node.Slot
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { slot.node = .null }
    mutating func encode(_ value: some Encodable) throws { try store(value, in: slot, codingPath: codingPath) }
}
