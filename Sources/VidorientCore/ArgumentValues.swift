/// The values a person gives as text (on the command line, or to a library call that takes
/// text), each read in one place, here, and refused with the reason. A refusal's `description`
/// is a phrase that follows the option's name: `--size` + ` must be WxH with each side 1-32767`.
public struct ValueError: Error, Sendable, Hashable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) { self.description = description }
}

/// `WxH` or `CxR`: two whole numbers joined by an `x` (either case); nil for anything else.
private func numberPair(_ text: String) -> (Int, Int)? {
    let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false).map { Int($0) }
    guard parts.count == 2, let first = parts[0], let second = parts[1] else { return nil }
    return (first, second)
}

/// A width and a height in pixels, given as `WxH`.
public struct PixelSize: Sendable, Hashable, CustomStringConvertible {
    /// A tkhd width and height are 16.16 fixed point: 32767 is the largest whole side.
    public static let largestStoredSide = 32767

    public let width: Int
    public let height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// `1920x1080`, each side 1 to `largestSide`.
    public static func parse(_ text: String, largestSide: Int = largestStoredSide) throws(ValueError) -> PixelSize {
        guard let (width, height) = numberPair(text), (1...largestSide).contains(width),
            (1...largestSide).contains(height)
        else { throw ValueError("must be WxH with each side 1-\(largestSide), for example 1920x1080") }
        return PixelSize(width: width, height: height)
    }

    public var description: String { "\(width)x\(height)" }
}

/// The tiles of a contact sheet: columns by rows, given as `CxR`.
public struct ContactSheetGrid: Sendable, Hashable, CustomStringConvertible {
    /// The most columns, and the most rows: 400 tiles already make a sheet nobody reads.
    public static let largestSide = 20

    public let columns: Int
    public let rows: Int

    public init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
    }

    /// `4x3`, each 1 to `largestSide`.
    public static func parse(_ text: String) throws(ValueError) -> ContactSheetGrid {
        let sides = 1...largestSide
        guard let (columns, rows) = numberPair(text), sides.contains(columns), sides.contains(rows) else {
            throw ValueError("must be CxR with 1-\(largestSide) each, for example 4x3")
        }
        return ContactSheetGrid(columns: columns, rows: rows)
    }

    public var description: String { "\(columns)x\(rows)" }
}

extension TimePoint {
    /// `12.5`, `01:02:03.250`, `2:03` or `10%`, within 0 to `maximumSeconds`.
    public static func parse(_ text: String) throws(ValueError) -> TimePoint {
        guard let point = TimePoint(parsing: text) else {
            throw ValueError(
                "must be 0 to \(Int(maximumSeconds)) seconds, [HH:]MM:SS[.ms] within that, or a percentage 0%-100%")
        }
        return point
    }
}

extension Severity {
    /// `error`, `warning` or `info`.
    public static func parse(_ text: String) throws(ValueError) -> Severity {
        guard let severity = Severity(rawValue: text) else { throw ValueError("must be error, warning or info") }
        return severity
    }
}

/// An orientation given by its EXIF number, 1 to 8 (`fix --orientation 6`).
public struct OrientationChoice: Sendable, Hashable, CustomStringConvertible {
    public let orientation: Orientation

    public init(_ orientation: Orientation) { self.orientation = orientation }

    public static func parse(_ text: String) throws(ValueError) -> OrientationChoice {
        guard let number = Int(text), let orientation = Orientation(exif: number) else {
            throw ValueError("takes an EXIF orientation, 1 to 8")
        }
        return OrientationChoice(orientation)
    }

    public var description: String { String(orientation.rawValue) }
}

/// A turn in clockwise degrees (`fix --rotate`), any multiple of 90: `90` sets the rotation, a
/// sign (`+90`, `-90`) turns from the orientation the file shows now.
public struct RotationChoice: Sendable, Hashable, CustomStringConvertible {
    public let degrees: Int
    /// Signed: composes with the current orientation instead of replacing it.
    public let isRelative: Bool

    public static func parse(_ text: String) throws(ValueError) -> RotationChoice {
        guard let degrees = Int(text), degrees % 90 == 0 else {
            throw ValueError("takes a multiple of 90 degrees, such as 90, 270, +90 or -90")
        }
        return RotationChoice(degrees: degrees, isRelative: text.hasPrefix("+") || text.hasPrefix("-"))
    }

    /// The turn, after a horizontal mirror when `mirrored`.
    public func orientation(mirrored: Bool) -> Orientation {
        let turns = ((degrees / 90) % 4 + 4) % 4
        let table: [Orientation] =
            mirrored ? [.upMirrored, .rightMirrored, .downMirrored, .leftMirrored] : [.up, .right, .down, .left]
        return table[turns]
    }

    public var description: String { (isRelative && degrees >= 0 ? "+" : "") + String(degrees) }
}
