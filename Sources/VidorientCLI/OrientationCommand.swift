import ArgumentParser
import VidorientCore

struct OrientationCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "orientation",
        abstract: "Print every equivalent representation of one orientation, or of all eight.",
        discussion: """
            Give the orientation as exactly one of the options, for example --exif 6, --uiimage 3, \
            --matrix 0,1,-1,0, --rotation 90 --mirrored, --heif 3,0, --capture portrait or \
            --device landscapeLeft. Without one, all eight are printed.
            """
    )

    @Option(help: "EXIF/TIFF Orientation (and CGImagePropertyOrientation raw value), 1-8.")
    var exif: String?

    @Option(name: .customLong("uiimage"), help: "UIImage.Orientation raw value, 0-7.")
    var uiImage: String?

    // Unconditional: a value may start with a minus sign (`-1,0,0,-1`, `-90`), as `fix --rotation` takes it.
    @Option(parsing: .unconditional, help: "Matrix in tkhd order: a,b,c,d or a,b,c,d,tx,ty or all 9 entries.")
    var matrix: String?

    @Option(parsing: .unconditional, help: "Clockwise degrees (applied after --mirrored): a multiple of 90.")
    var rotation: String?

    @Flag(help: SharedHelp.mirrored)
    var mirrored = false

    @Option(help: "HEIF irot (counter-clockwise quarter turns) and optional imir axis: irot[,imir].")
    var heif: String?

    @Option(help: "AVCaptureVideoOrientation, by raw value 1-4 or name, for an unmirrored back camera.")
    var capture: String?

    @Option(help: "UIDeviceOrientation, by raw value 1-4 or name (its landscape names swap the capture's).")
    var device: String?

    // `--stored-size`: thumbnail's --size is the box a picture fits in, another idea (issue 24).
    @Option(
        help: "Stored size WxH, each 1-32767, for the matrix translation and the displayed size (default: 1920x1080).",
        transform: PixelSize.parser(for: "--stored-size"))
    var storedSize: PixelSize?

    // Its name before issue 24, still accepted.
    @Option(
        name: .customLong("size"), help: ArgumentHelp(visibility: .hidden), transform: PixelSize.parser(for: "--size"))
    var sizeAlias: PixelSize?

    private var size: PixelSize { storedSize ?? sizeAlias ?? PixelSize(width: 1920, height: 1080) }

    @OptionGroup var jsonOutput: JSONOption

    private var given: [(Orientation.Representation, String)] {
        let all: [(Orientation.Representation, String?)] = [
            (.exif, exif), (.uiImage, uiImage), (.matrix, matrix), (.rotation, rotation), (.heif, heif),
            (.capture, capture), (.device, device),
        ]
        return all.compactMap { representation, value in value.map { (representation, $0) } }
    }

    func validate() throws {
        guard given.count <= 1 else { throw ValidationError("give the orientation in one representation only") }
        if mirrored && rotation == nil { throw ValidationError("--mirrored goes with --rotation") }
        if let (representation, value) = given.first {
            do { _ = try Orientation.parse(value, as: representation, mirrored: mirrored) } catch {
                throw ValidationError(error.description)
            }
        }
    }

    func run() throws {
        let orientations =
            try given.first.map { [try Orientation.parse($0.1, as: $0.0, mirrored: mirrored)] } ?? Orientation.allCases
        let descriptions = orientations.map {
            OrientationDescription($0, storedWidth: size.width, storedHeight: size.height)
        }
        if jsonOutput.json {
            let encoder = JSONText()
            print(descriptions.count == 1 ? try encoder.encode(descriptions[0]) : try encoder.encode(descriptions))
            return
        }
        let terminal = Terminal.standardOutput
        print(descriptions.map { $0.text(terminal.painter) }.joined(separator: "\n"), terminator: "")
    }
}
