public import VidorientCore
public import VidorientIO

/// What an MP4 or QuickTime file's boxes say about its movie and tracks, read from the headers
/// alone: the facts FFmpeg 5.1 hides (the movie and track matrices separately, where they sit in
/// the file, track-level metadata, the keys of timed-metadata tracks) and the ones `fix` needs.
public struct MovieStructure: Sendable, Hashable {
    /// One box at the top level of the file.
    public struct TopLevelBox: Sendable, Hashable {
        public var type: FourCC
        public var offset: Int64
        public var size: Int64
    }

    public var fileSize: Int64
    /// `ftyp`'s major brand (`isom`, `mp42`, `qt  `…); nil for old QuickTime files without `ftyp`.
    public var majorBrand: FourCC?
    public var compatibleBrands: [FourCC]
    /// Every top-level box in file order.
    public var topLevelBoxes: [TopLevelBox]
    /// A `moov/mvex` or any top-level `moof`: samples live in movie fragments.
    public var isFragmented: Bool
    public var moov: TopLevelBox
    /// Whether `moov` comes before the first `mdat` ("faststart"); nil without an `mdat`.
    public var moovPrecedesMdat: Bool?
    public var movieHeader: MovieHeader
    public var tracks: [Track]
    /// Movie-level `moov/meta` (QuickTime `mdta` keys) and `moov/udta/meta` (iTunes `ilst`) items.
    public var metadata: [MetadataItem]
    /// Where the boxes that only the description reads are (`ftyp`, `mvhd`, `moov/udta`, `moov/meta`).
    var movieBoxes = MovieBoxes()

    /// Tracks whose handler is `vide`, in file order.
    public var videoTracks: [Track] { tracks.filter { $0.handler == "vide" } }

    /// Reads the structure of the file at `path`.
    public init(path: String) throws(ISOBMFFError) {
        try self.init(ReadAheadBytes(FileBytes(path: path)))
    }

    /// Reads the structure of `source`, which must hold the whole file.
    public init(_ source: some ByteSource) throws(ISOBMFFError) {
        var parser = MovieParser(source)
        self = try parser.parse()
    }

    init(
        fileSize: Int64, majorBrand: FourCC?, compatibleBrands: [FourCC], topLevelBoxes: [TopLevelBox],
        isFragmented: Bool, moov: TopLevelBox, moovPrecedesMdat: Bool?, movieHeader: MovieHeader, tracks: [Track],
        metadata: [MetadataItem]
    ) {
        self.fileSize = fileSize
        self.majorBrand = majorBrand
        self.compatibleBrands = compatibleBrands
        self.topLevelBoxes = topLevelBoxes
        self.isFragmented = isFragmented
        self.moov = moov
        self.moovPrecedesMdat = moovPrecedesMdat
        self.movieHeader = movieHeader
        self.tracks = tracks
        self.metadata = metadata
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
public struct MovieHeader: Sendable, Hashable {
    public var version: UInt8
    public var timescale: UInt32
    public var duration: UInt64
    /// Applied after every track's matrix; FFmpeg multiplies the two and shows only the product.
    public var matrix: StoredMatrix
    public var nextTrackID: UInt32
}

/// One `trak`.
public struct Track: Sendable, Hashable {
    public var trackID: UInt32
    /// `tkhd` version: 0 (32-bit times) or 1 (64-bit).
    public var headerVersion: UInt8
    /// `tkhd` flags: 1 enabled, 2 in movie, 4 in preview.
    public var headerFlags: UInt32
    public var matrix: StoredMatrix
    /// `tkhd` width and height (16.16): the picture before the matrix, after the pixel aspect
    /// ratio. The translation Apple writes is computed from these.
    public var width: Double
    public var height: Double
    /// `mdia/hdlr` handler type: `vide`, `soun`, `meta`, `text`, `sbtl`, `tmcd`…
    public var handler: FourCC?
    public var mediaTimescale: UInt32?
    public var mediaDuration: UInt64?
    /// The first `stsd` sample entry's format: `avc1`, `hvc1`, `mp4a`, `mebx`…
    public var sampleEntry: FourCC?
    public var sampleEntryCount: Int
    /// A visual sample entry's stored width and height, in pixels.
    public var codedWidth: Int?
    public var codedHeight: Int?
    /// The track's own `meta` (QuickTime keys and item list), which libavformat 5.1 never reads.
    public var metadata: [MetadataItem]
    /// The keys a `mebx` timed-metadata track declares in its sample entry.
    public var timedMetadataKeys: [TimedMetadataKey]
    /// Where the sample tables are, for reading timed metadata values.
    var sampleTable: SampleTableBoxes?
    /// Where the boxes that only the description reads are (`mdhd`, `hdlr`, `stsd`'s first
    /// entry, `elst`, `stss`, `udta`).
    var boxes = TrackBoxes()

    public var isEnabled: Bool { headerFlags & 1 != 0 }
}

/// One key of a `mebx` track's sample description (`keys` / local key ID / `keyd` + `dtyp`).
public struct TimedMetadataKey: Sendable, Hashable {
    /// The box type samples use for this key's values.
    public var localID: UInt32
    /// `mdta` for reverse-DNS names, `udta`, or others.
    public var namespace: FourCC
    /// Such as `com.apple.quicktime.video-orientation`.
    public var name: String
    /// A well-known type (`dtyp` namespace 0): 66 is a big-endian int16, 1 UTF-8…
    public var wellKnownType: UInt32?
    /// A type named by reverse DNS (`dtyp` namespace 1), such as `com.apple.quicktime.detected-face`.
    public var typeName: String?
}

/// One `data` atom of an item list, decoded by its well-known type.
public struct MetadataItem: Sendable, Hashable {
    /// The `keys` entry (`com.apple.quicktime.camera.identifier`), or the item's own type
    /// (`©nam`), or an iTunes freeform `----` item's `name`.
    public var key: String
    /// The key's namespace, `mdta` for QuickTime keys; nil for items named by their box type.
    public var namespace: FourCC?
    /// QuickTime's well-known data type: 0 binary, 1 UTF-8, 21/22 signed/unsigned integer…
    public var dataType: UInt32
    public var locale: UInt32
    public var value: MetadataValue

    public init(key: String, namespace: FourCC?, dataType: UInt32, locale: UInt32, value: MetadataValue) {
        self.key = key
        self.namespace = namespace
        self.dataType = dataType
        self.locale = locale
        self.value = value
    }
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
