/// FNV-1a, 64 bits: a name that changes when the bytes do, the same across runs, machines and
/// Swift versions (unlike `Hasher`). Not a secret. Used for a path's shard (`Shard`), a review
/// page's identity (`HTMLReport`) and a file's first page (`AuditedFile`).
public struct FNV1a: Sendable {
    public private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325
    private static let prime: UInt64 = 0x0000_0100_0000_01B3

    public init() {}

    /// FNV-1a of `bytes`.
    public init(_ bytes: some Sequence<UInt8>) { add(bytes) }

    /// Each byte in turn.
    public mutating func add(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            value ^= UInt64(byte)
            value &*= Self.prime
        }
    }

    /// FNV-1a's steps over little-endian 64-bit words, then the last bytes one by one: an eighth
    /// of the steps of `add` (a different value), for a page read of every audited file.
    public mutating func addWords(_ bytes: [UInt8]) {
        let words = bytes.count / 8
        bytes.withUnsafeBytes { raw in
            for index in 0..<words {
                value ^= UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self))
                value &*= Self.prime
            }
        }
        add(bytes[(words * 8)...])
    }

    /// Sixteen lowercase hex digits.
    public var hex: String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
