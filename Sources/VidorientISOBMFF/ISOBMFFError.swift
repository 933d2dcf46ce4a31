/// Why a file could not be read or fixed, in a few lowercase words (no path: the caller names
/// the file, as in `could not fix 'x.mp4': fragmented mp4 (moof) is not supported`).
public struct ISOBMFFError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// The operating system refused: missing file, no permission, disk full.
        case io
        /// Not an ISO-BMFF/QuickTime file, or one whose boxes contradict each other.
        case malformed
        /// A well-formed file this code will not change, such as a fragmented MP4.
        case unsupported
    }

    public var kind: Kind
    public var reason: String

    public init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }

    public var description: String { reason }

    static func malformed(_ reason: String) -> ISOBMFFError { ISOBMFFError(.malformed, reason) }
    static func unsupported(_ reason: String) -> ISOBMFFError { ISOBMFFError(.unsupported, reason) }
}
