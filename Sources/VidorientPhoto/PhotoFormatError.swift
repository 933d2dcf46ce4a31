/// Why a photo's structure could not be read, in a few lowercase words (no path: the caller
/// names the file, as in `could not read 'x.png': bad crc in chunk 'IHDR'`).
public struct PhotoFormatError: Error, Sendable, Hashable, CustomStringConvertible {
    public var reason: String

    public init(_ reason: String) { self.reason = reason }

    public var description: String { reason }
}
