import Synchronization
public import VidorientCore
package import VidorientIO

/// What an MP4 or QuickTime file's boxes say about its movie and tracks, read from the headers
/// alone: the facts FFmpeg 5.1 hides (the movie and track matrices separately, where they sit in
/// the file, track-level metadata, the keys of timed-metadata tracks) and the ones `fix` needs.
package struct MovieStructure: Sendable, Hashable {
    package var fileSize: Int64
    /// `ftyp`'s major brand (`isom`, `mp42`, `qt  `…); nil for old QuickTime files without `ftyp`.
    package var majorBrand: FourCC?
    package var compatibleBrands: [FourCC]
    /// Every top-level box in file order.
    package var topLevelBoxes: [BoxHeader]
    /// A `moov/mvex` or any top-level `moof`: samples live in movie fragments.
    package var isFragmented: Bool
    package var moov: BoxHeader
    /// Whether `moov` comes before the first `mdat` ("faststart"); nil without an `mdat`.
    package var moovPrecedesMdat: Bool?
    package var movieHeader: MovieHeader
    package var tracks: [Track]
    /// Movie-level `moov/meta` (QuickTime `mdta` keys) and `moov/udta/meta` (iTunes `ilst`) items.
    package var metadata: [MetadataItem]
    /// Why the file ends before its last top-level box does (a cut copy or download: the media
    /// data is short), for the `file-truncated` finding; nil for a whole file.
    package var truncation: String?
    /// Where the boxes that only the description reads are (`ftyp`, `mvhd`, `moov/udta`, `moov/meta`).
    var movieBoxes = MovieBoxes()

    /// Tracks whose handler is `vide`, in file order.
    package var videoTracks: [Track] { tracks.filter { $0.handler == "vide" } }
}

extension MovieStructure {
    /// Reads the structure of the file at `path`.
    package init(path: String) throws(ISOBMFFError) {
        try self.init(ReadAheadBytes(FileBytes(path: path)))
    }

    /// Reads the structure of `source`, which must hold the whole file.
    package init(_ source: some ByteSource) throws(ISOBMFFError) {
        MovieParses.current?.count.add(1, ordering: .relaxed)
        var parser = MovieParser(source)
        self = try parser.parse()
    }
}

/// A matrix as a `tkhd` or `mvhd` box stores it, and where: 36 bytes of nine big-endian int32
/// (16.16 fixed point, 2.30 for u, v, w) at an absolute file offset.
public struct StoredMatrix: Sendable, Hashable {
    /// The nine integers in tkhd order `[a, b, u, c, d, v, tx, ty, w]`.
    public var fixedPoint: [Int32]
    /// Absolute offset of the first of the 36 bytes.
    public var offset: Int64

    public static let byteCount = 36

    public init(fixedPoint: [Int32], offset: Int64) {
        precondition(fixedPoint.count == 9, "a matrix has nine entries")
        self.fixedPoint = fixedPoint
        self.offset = offset
    }

    public var matrix: DisplayMatrix { DisplayMatrix(fixedPoint: fixedPoint)! }

    /// The 36 bytes as the file holds them.
    public var bytes: [UInt8] { fixedPoint.flatMap { [UInt8](bigEndian: $0) } }
}

/// The `mvhd` box: the whole movie's time scale and matrix.
package struct MovieHeader: Sendable, Hashable {
    package var version: UInt8
    package var timescale: UInt32
    package var duration: UInt64
    /// Applied after every track's matrix; FFmpeg multiplies the two and shows only the product.
    package var matrix: StoredMatrix
    package var nextTrackID: UInt32
}

/// One `trak`.
package struct Track: Sendable, Hashable {
    package var trackID: UInt32
    /// `tkhd` version: 0 (32-bit times) or 1 (64-bit).
    package var headerVersion: UInt8
    /// `tkhd` flags: 1 enabled, 2 in movie, 4 in preview.
    package var headerFlags: UInt32
    package var matrix: StoredMatrix
    /// `tkhd` width and height (16.16): the picture before the matrix, after the pixel aspect
    /// ratio. The translation Apple writes is computed from these.
    package var width: Double
    package var height: Double
    /// `mdia/hdlr` handler type: `vide`, `soun`, `meta`, `text`, `sbtl`, `tmcd`…
    package var handler: FourCC?
    package var mediaTimescale: UInt32?
    package var mediaDuration: UInt64?
    /// The first `stsd` sample entry's format: `avc1`, `hvc1`, `mp4a`, `mebx`…
    package var sampleEntry: FourCC?
    package var sampleEntryCount: Int
    /// A visual sample entry's stored width and height, in pixels.
    package var codedWidth: Int?
    package var codedHeight: Int?
    /// The track's own `meta` (QuickTime keys and item list), which libavformat 5.1 never reads.
    package var metadata: [MetadataItem]
    /// The keys a `mebx` timed-metadata track declares in its sample entry.
    package var timedMetadataKeys: [TimedMetadataKey]
    /// Where the sample tables are, for reading timed metadata values.
    var sampleTable: SampleTableBoxes?
    /// Why the file ends before its last top-level box does (a cut copy or download: the media
    /// data is short), for the `file-truncated` finding; nil for a whole file.
    package var truncation: String?
    /// Where the boxes that only the description reads are (`mdhd`, `hdlr`, `stsd`'s first
    /// entry, `elst`, `stss`, `udta`).
    var boxes = TrackBoxes()

    package var isEnabled: Bool { headerFlags & 1 != 0 }
}

/// One key of a `mebx` track's sample description (`keys` / local key ID / `keyd` + `dtyp`).
package struct TimedMetadataKey: Sendable, Hashable {
    /// The box type samples use for this key's values.
    package var localID: UInt32
    /// `mdta` for reverse-DNS names, `udta`, or others.
    package var namespace: FourCC
    /// Such as `com.apple.quicktime.video-orientation`.
    package var name: String
    /// A well-known type (`dtyp` namespace 0): 66 is a big-endian int16, 1 UTF-8…
    package var wellKnownType: UInt32?
    /// A type named by reverse DNS (`dtyp` namespace 1), such as `com.apple.quicktime.detected-face`.
    package var typeName: String?
}

/// One `data` atom of an item list, decoded by its well-known type.
package struct MetadataItem: Sendable, Hashable {
    /// The `keys` entry (`com.apple.quicktime.camera.identifier`), or the item's own type
    /// (`©nam`), or an iTunes freeform `----` item's `name`.
    package var key: String
    /// The key's namespace, `mdta` for QuickTime keys; nil for items named by their box type.
    package var namespace: FourCC?
    /// QuickTime's well-known data type: 0 binary, 1 UTF-8, 21/22 signed/unsigned integer…
    package var dataType: UInt32
    package var locale: UInt32
    package var value: MetadataValue
}

/// Where a track's sample tables sit, so that timed metadata can be read without walking again.
struct SampleTableBoxes: Sendable, Hashable {
    var timeToSample: BoxHeader
    var sampleToChunk: BoxHeader
    var sampleSizes: BoxHeader
    /// `stco` (32-bit) or `co64` (64-bit) chunk offsets.
    var chunkOffsets: BoxHeader
}

/// Movie-level boxes kept by the parser for `MovieDescription`, which reads them on demand.
struct MovieBoxes: Sendable, Hashable {
    var ftyp: BoxHeader?
    var mvhd: BoxHeader?
    /// `moov`'s children in file order, with the index of the `trak` each follows (for cover art).
    var userData: [BoxHeader] = []
    var meta: [BoxHeader] = []
    /// The `moov` children's order: `trak` boxes counted before each `udta`, to place cover art.
    var tracksBeforeUserData: [Int] = []
}

/// Track-level boxes kept by the parser for `MovieDescription`.
struct TrackBoxes: Sendable, Hashable {
    var tkhd: BoxHeader?
    var mdhd: BoxHeader?
    var hdlr: BoxHeader?
    var sampleEntry: BoxHeader?
    var editList: BoxHeader?
    var syncSamples: BoxHeader?
    var compositionOffsets: BoxHeader?
    var userData: [BoxHeader] = []
    var trackReferences: BoxHeader?
}

/// Counts the movie structures parsed inside `counting` on this task (tests run side by side, so
/// a process-wide count would mix theirs): what holds a fix to one parse of its `moov` for its
/// plan, its read-backs apart.
package final class MovieParses: Sendable {
    @TaskLocal package static var current: MovieParses?
    fileprivate let count = Atomic<Int>(0)

    /// `body`'s result and the movie structures it parsed.
    package static func counting<Result>(_ body: () throws -> Result) rethrows -> (Result, parses: Int) {
        let counter = MovieParses()
        let result = try $current.withValue(counter) { try body() }
        return (result, counter.count.load(ordering: .relaxed))
    }
}
