/// What a photo reader found in a file, before any judgement: the facts `PhotoReport` decides
/// on. The readers (VidorientPhoto) fill it from the file's own bytes; nothing here is guessed.
public struct PhotoEvidence: Sendable, Hashable {
    public var path: String
    public var format: MediaFormat
    /// A finer name where one exists: `dng`, `cr2`, `nef`, `arw`, `webp lossless`, `heic grid 8x6`.
    public var formatDetail: String?
    public var fileSize: Int?
    /// The coding of the main picture: `jpeg`, `png`, `tiff`, `hevc`, `av1`, `vp8`, `vp8l`.
    public var codec: String?
    /// The pixels as coded, before any orientation. For HEIF, the primary item's `ispe` (for a
    /// grid, the output size), before `clap`, `irot` and `imir`.
    public var storedWidth: Int?
    public var storedHeight: Int?
    public var bitDepth: Int?
    public var hasAlpha: Bool
    /// Every statement of an orientation in the file (and its sidecar), in the order found.
    public var statements: [OrientationStatement]
    /// The EXIF block's other facts (make, model, date, …); nil when the file has no EXIF.
    public var exif: EXIFMetadata?
    /// The HEIF item structure; nil for other formats.
    public var heif: HEIFEvidence?
    /// Pictures embedded in the file besides the main one: a raw file's JPEG previews, the EXIF
    /// thumbnail. Largest first.
    public var previews: [EmbeddedImage]
    /// What the reader met that did not stop it: a bad CRC in an ancillary PNG chunk, EXIF after
    /// the image data, an IFD offset loop.
    public var readerFindings: [Finding]
    /// A motion photo's video (Samsung's `mpvd` box), probed from its own boxes, with its own
    /// orientation.
    public var motionVideo: MediaProbe?

    public init(path: String, format: MediaFormat) {
        self.path = path
        self.format = format
        self.hasAlpha = false
        self.statements = []
        self.previews = []
        self.readerFindings = []
    }
}

/// One place in a file (or its sidecar) that states an orientation.
public struct OrientationStatement: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// The EXIF/TIFF `Orientation` tag (274).
        case exif
        /// XMP `tiff:Orientation` embedded in the file.
        case xmp
        /// HEIF's transformative item properties `irot` and `imir`, composed in `ipma` order.
        case heif
        /// XMP `tiff:Orientation` in a sidecar file beside the photo (`name.xmp`, `name.ext.xmp`).
        case sidecar
    }

    public var kind: Kind
    /// Where exactly, for a person: `APP1 EXIF IFD0`, `eXIf chunk`, `zTXt 'Raw profile type exif'`,
    /// `EXIF chunk`, `XMP in APP1`, `Exif item 6`, `irot 3, imir 1 (ipma order)`, `IMG_1.HEIC.xmp`.
    public var location: String
    /// The value as stored: an EXIF tag may hold 0 or 9. Nil for HEIF transforms.
    public var rawValue: Int?
    /// What the statement means; nil when the stored value is not one of the eight.
    public var orientation: Orientation?

    public init(kind: Kind, location: String, rawValue: Int?, orientation: Orientation?) {
        self.kind = kind
        self.location = location
        self.rawValue = rawValue
        self.orientation = orientation
    }

    /// An EXIF or XMP value as stored: the orientation when it is 1–8.
    public init(kind: Kind, location: String, rawValue: Int) {
        self.init(kind: kind, location: location, rawValue: rawValue, orientation: Orientation(exif: rawValue))
    }
}

/// The EXIF facts a photo report shows, read from IFD0, the Exif IFD, the GPS IFD pointer and
/// IFD1 (the thumbnail).
public struct EXIFMetadata: Sendable, Hashable {
    /// `II` (little-endian) or `MM` (big-endian).
    public var byteOrder: String
    /// IFD0 `Orientation` as stored; nil when absent.
    public var orientation: Int?
    public var make: String?
    public var model: String?
    public var software: String?
    public var lensMake: String?
    public var lensModel: String?
    /// `DateTimeOriginal` as stored (`YYYY:MM:DD HH:MM:SS`), with `OffsetTimeOriginal` when present.
    public var dateTimeOriginal: String?
    public var offsetTimeOriginal: String?
    /// The Exif IFD's `PixelXDimension`/`PixelYDimension`: the size the camera says it wrote.
    public var pixelXDimension: Int?
    public var pixelYDimension: Int?
    /// IFD0 `ImageWidth`/`ImageLength` (TIFF and raw files).
    public var imageWidth: Int?
    public var imageHeight: Int?
    /// The GPS IFD's position; nil without a GPS IFD, or when it lacks either coordinate.
    public var gps: Location?
    /// IFD1's JPEG thumbnail, when there is one.
    public var thumbnail: EmbeddedImage?

    public init(byteOrder: String) {
        self.byteOrder = byteOrder
    }
}

/// A picture embedded in a file: where its bytes are and how large it is.
public struct EmbeddedImage: Sendable, Hashable {
    /// `jpeg` for EXIF thumbnails and raw previews; a HEIF thumbnail item's codec otherwise.
    public var codec: String
    /// Absolute offset of its first byte in the file; nil when unknown (EXIF read from memory).
    public var offset: Int?
    public var length: Int
    public var width: Int?
    public var height: Int?
    /// Where it came from: `IFD1`, `SubIFD 0`, `thumbnail item 2`.
    public var location: String
    /// A HEIF thumbnail item's own `irot`/`imir`/`clap`, in `ipma` order (a thumbnail is shown
    /// with its own transforms, not the primary item's); empty for every other picture.
    public var heifTransforms: [HEIFItemTransform] = []

    public init(codec: String, offset: Int?, length: Int, width: Int?, height: Int?, location: String) {
        self.codec = codec
        self.offset = offset
        self.length = length
        self.width = width
        self.height = height
        self.location = location
    }
}

/// A HEIF file's primary item, its properties in `ipma` order, and the items around it.
public struct HEIFEvidence: Sendable, Hashable {
    public var primaryItemID: Int
    /// The primary item's type: `hvc1`, `av01`, `grid`, `iden`, `jpeg`.
    public var itemType: String
    /// The primary item's transformative properties, in the order `ipma` lists them: the order
    /// is part of their meaning.
    public var transforms: [HEIFItemTransform]
    /// A grid's columns and rows; nil when the primary item is not a grid.
    public var gridColumns: Int?
    public var gridRows: Int?
    /// The codec of a grid's tiles (or of the item itself).
    public var tileCodec: String?
    /// Thumbnail items (`thmb` references to the primary item).
    public var thumbnails: [EmbeddedImage]
    /// Auxiliary images of the primary item, by their `auxC` type: `alpha`, `depth`,
    /// `hdrgainmap`, or the URN as written.
    public var auxiliary: [String]
    /// The `colr` property's type: `nclx`, `prof` or `rICC`.
    public var colourType: String?
    /// Whether the top-level `meta` box comes after the media data (`exif-at-eof` layouts, Samsung).
    public var metaAfterMediaData: Bool

    public init(primaryItemID: Int, itemType: String) {
        self.primaryItemID = primaryItemID
        self.itemType = itemType
        self.transforms = []
        self.thumbnails = []
        self.auxiliary = []
        self.metaAfterMediaData = false
    }
}

/// One transformative HEIF item property.
public enum HEIFItemTransform: Sendable, Hashable {
    /// `irot`: anticlockwise quarter turns, 0–3.
    case rotation(anticlockwiseQuarterTurns: Int)
    /// `imir`: axis 0 flips top and bottom (a mirror about the horizontal axis), 1 swaps left
    /// and right (ISO/IEC 23008-12:2022 and libheif).
    case mirror(axis: Int)
    /// `clap`: the clean aperture's size and its centre's offset from the picture's centre, in pixels.
    case cleanAperture(width: Double, height: Double, horizontalOffset: Double, verticalOffset: Double)
}
