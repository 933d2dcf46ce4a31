public import Foundation

/// The generated media (`TestMedia/generate.sh`) and what `TestMedia/manifest.json` says each
/// file is, recorded from how it was built.
public enum TestMedia {
    public struct Statement: Decodable, Sendable, Hashable {
        public let kind: String
        public let location: String
        public let rawValue: Int

        public init(kind: String, location: String, rawValue: Int) {
            self.kind = kind
            self.location = location
            self.rawValue = rawValue
        }
    }

    public struct EXIFFacts: Decodable, Sendable {
        public let make: String?
        public let model: String?
        public let byteOrder: String?
        public let lensModel: String?
        public let dateTimeOriginal: String?
        public let offsetTimeOriginal: String?
        public let pixelXDimension: Int?
        public let pixelYDimension: Int?
    }

    /// One file's truth; every key is optional but `bad` (keys are the manifest's, snake_case).
    public struct Entry: Decodable, Sendable, CustomStringConvertible {
        public internal(set) var name = ""
        public let container: String?
        public let videoCodec: String?
        public let videoIndex: Int?
        public let attachedPic: Bool?
        public let storedWidth: Int?
        public let storedHeight: Int?
        public let displayWidth: Int?
        public let displayHeight: Int?
        public let exifOrientation: Int?
        public let rotation: Double?
        public let mirrored: Bool?
        public let orientationSource: String?
        public let matrix: [Double]?
        public let matrixInt32: [Int32]?
        public let ffprobeRotation: Int?
        public let sampleAspectRatio: String?
        public let faststart: Bool?
        public let bad: Bool
        /// Set for photos.
        public let photoFormat: String?
        /// The orientation the stored pixels need to be upright; it differs from the reported one
        /// only in files built to be wrong (a tag left on turned pixels, a sidecar's opinion).
        public let pixelsOrientation: Int?
        public let statements: [Statement]?
        public let readerFindings: [String]?
        public let photoError: String?
        public let exif: EXIFFacts?

        enum CodingKeys: String, CodingKey {
            case container, videoCodec, videoIndex, attachedPic, storedWidth, storedHeight, displayWidth, displayHeight
            case exifOrientation, rotation, mirrored, orientationSource, matrix, matrixInt32, ffprobeRotation
            case sampleAspectRatio, faststart, bad, photoFormat, pixelsOrientation, statements, readerFindings
            case photoError, exif
        }

        /// The file's name: what Swift Testing shows for a test case that takes an entry.
        public var description: String { name }
        public var path: String { TestMedia.path(name) }
        /// An MP4, MOV or M4A: a file the box reader must read.
        public var isISO: Bool { !bad && ["mp4", "mov", "m4a"].contains(container ?? "") }
        /// Whether a viewer that obeys the report shows the picture upright.
        public var showsUpright: Bool { pixelsOrientation == nil || pixelsOrientation == exifOrientation }
    }

    public static let folder = PackageFolder.root.appendingPathComponent("TestMedia")

    public static func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// A copy of the file `name` with `edit` applied to its bytes, written into `folder`; its path.
    public static func mutated(_ name: String, in folder: URL, _ edit: (inout [UInt8]) throws -> Void) throws
        -> String
    {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path(name))))
        try edit(&bytes)
        let copy = folder.appendingPathComponent("mutated-" + name).path
        try Data(bytes).write(to: URL(fileURLWithPath: copy))
        return copy
    }

    /// Every file the manifest describes, sorted by name (empty when it cannot be read: each
    /// suite that takes a table checks that its table is not empty).
    public static let entries: [Entry] = {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        guard let data = try? Data(contentsOf: folder.appendingPathComponent("manifest.json")),
            let decoded = try? decoder.decode([String: Entry].self, from: data)
        else { return [] }
        return decoded.map { name, entry in
            var entry = entry
            entry.name = name
            return entry
        }.sorted { $0.name < $1.name }
    }()

    public static func entry(_ name: String) -> Entry? { entries.first { $0.name == name } }

    /// Every readable file, videos and photos of every format.
    public static var good: [Entry] { entries.filter { !$0.bad } }
    /// Every file built to be unreadable.
    public static var bad: [Entry] { entries.filter(\.bad) }
    /// The MP4, MOV and M4A files the box reader must read.
    public static var iso: [Entry] { entries.filter(\.isISO) }
    /// The bad MP4s (the bad HEIF files have their own tests).
    public static var badMP4s: [Entry] { entries.filter { $0.bad && $0.name.hasSuffix(".mp4") } }
    /// The readable HEIC and AVIF files.
    public static var heif: [Entry] { entries.filter { !$0.bad && ["heic", "avif"].contains($0.container ?? "") } }
    /// Every photo the manifest describes, readable or not.
    public static var photos: [Entry] { entries.filter { $0.photoFormat != nil } }
}
