import Testing
import VidorientCore

@Suite struct PhotoReportTests {
    static func evidence(
        _ format: MediaFormat = .jpeg, width: Int = 4032, height: Int = 3024, statements: [OrientationStatement] = []
    ) -> PhotoEvidence {
        var evidence = PhotoEvidence(path: "p", format: format)
        evidence.storedWidth = width
        evidence.storedHeight = height
        evidence.statements = statements
        return evidence
    }

    static func exif(_ value: Int) -> OrientationStatement {
        OrientationStatement(kind: .exif, location: "APP1 EXIF IFD0", rawValue: value)
    }

    static func xmp(_ value: Int) -> OrientationStatement {
        OrientationStatement(kind: .xmp, location: "XMP in APP1", rawValue: value)
    }

    static func heif(_ transforms: [HEIFItemTransform], exif: Int? = nil) -> PhotoEvidence {
        var evidence = Self.evidence(.heif(brand: "heic"), statements: exif.map { [Self.exif($0)] } ?? [])
        var structure = HEIFEvidence(primaryItemID: 1, itemType: "grid")
        structure.transforms = transforms
        evidence.heif = structure
        return evidence
    }

    static func codes(_ findings: [Finding]) -> Set<String> { Set(findings.map(\.code)) }

    /// The composition of irot then imir agrees with the table Core already states for HEIF
    /// (`Orientation.heif`), for every orientation.
    @Test(arguments: Orientation.allCases)
    func heifTransformsInIpmaOrder(orientation: Orientation) {
        let pair = orientation.heif
        var transforms: [HEIFItemTransform] = [.rotation(anticlockwiseQuarterTurns: pair.irot)]
        if let axis = pair.imir { transforms.append(.mirror(axis: axis)) }
        #expect(Orientation(heifTransforms: transforms) == orientation)
        // The order is part of the meaning: imir before irot is another orientation whenever
        // both turn and mirror (a mirror does not commute with a quarter turn).
        if let axis = pair.imir, pair.irot % 2 == 1 {
            let swapped = Orientation(heifTransforms: [
                .mirror(axis: axis), .rotation(anticlockwiseQuarterTurns: pair.irot),
            ])
            #expect(swapped != orientation)
        }
    }

    @Test func heifIrotIsAnticlockwise() {
        // irot 3 = three quarter turns anticlockwise = one clockwise: EXIF 6 (Samsung's file).
        #expect(Orientation(heifTransforms: [.rotation(anticlockwiseQuarterTurns: 3)]) == .right)
        #expect(Orientation(heifTransforms: [.rotation(anticlockwiseQuarterTurns: 1)]) == .left)
        #expect(Orientation(heifTransforms: [.mirror(axis: 1)]) == .upMirrored)
        #expect(Orientation(heifTransforms: [.mirror(axis: 0)]) == .downMirrored)
        #expect(Orientation(heifTransforms: [.rotation(anticlockwiseQuarterTurns: 4)]) == nil)
        #expect(Orientation(heifTransforms: [.mirror(axis: 2)]) == nil)
    }

    @Test func heifDecidesAndExifIsCompared() {
        var findings: [Finding] = []
        // Agreeing: irot 3 and EXIF 6 both turn the picture: applying both turns it twice.
        let agreeing = PhotoReport(
            evidence: Self.heif([.rotation(anticlockwiseQuarterTurns: 3)], exif: 6), findings: &findings)
        #expect(agreeing.exifOrientation == 6 && agreeing.orientationSource == .heif)
        #expect(agreeing.displayWidth == 3024 && agreeing.displayHeight == 4032)
        #expect(agreeing.sources.map(\.source) == [.heif, .exif])
        #expect(Self.codes(findings) == ["orientation-duplicated"])

        // Disagreeing: irot/imir still decide; a finding names both.
        findings = []
        let conflict = PhotoReport(evidence: Self.heif([], exif: 6), findings: &findings)
        #expect(conflict.exifOrientation == 1 && conflict.orientationSource == .none)
        #expect(conflict.displayWidth == 4032)
        #expect(Self.codes(findings) == ["orientation-conflict"])

        // Agreeing on "upright" says nothing.
        findings = []
        _ = PhotoReport(evidence: Self.heif([], exif: 1), findings: &findings)
        #expect(findings.isEmpty)
    }

    /// A HEIF thumbnail item is shown with its own irot/imir: one shown in the other shape than
    /// the picture (a fix that turned the primary item alone, issue 24) is a finding; a thumbnail
    /// turned like the picture, a square one, or a square picture is not.
    @Test(
        arguments: [
            // primary transforms, thumbnail stored size, thumbnail transforms, expected finding
            ([3], 512, 384, [3], false),  // Samsung: both irot 3, both portrait
            ([0], 512, 384, [3], true),  // the primary turned back, the thumbnail left at 3
            ([3], 512, 384, [], true),  // the primary turned, the thumbnail has no irot
            ([], 320, 240, [], false),  // iPhone, both upright
            ([1], 320, 240, [3], false),  // opposite quarter turns: the same shape
            ([3], 240, 240, [], false),  // a square thumbnail has no shape to disagree with
        ] as [([Int], Int, Int, [Int], Bool)])
    func thumbnailShownInAnotherShapeIsAFinding(
        primary: [Int], width: Int, height: Int, thumbnail: [Int], expected: Bool
    ) throws {
        var evidence = Self.heif(primary.map { .rotation(anticlockwiseQuarterTurns: $0) })
        var image = EmbeddedImage(
            codec: "hevc", offset: nil, length: 1, width: width, height: height, location: "thumbnail item 50")
        image.heifTransforms = thumbnail.map { .rotation(anticlockwiseQuarterTurns: $0) }
        evidence.heif?.thumbnails = [image]
        var findings: [Finding] = []
        let report = PhotoReport(evidence: evidence, findings: &findings)
        let finding = findings.first { $0.code == "thumbnail-shape-differs" }
        #expect((finding != nil) == expected, "\(findings)")
        if let finding {
            #expect(finding.severity == .warning)
            let shown = thumbnail.count % 2 == 1 ? "\(height)x\(width)" : "\(width)x\(height)"
            let picture = "\(try #require(report.displayWidth))x\(try #require(report.displayHeight))"
            #expect(finding.message.contains("thumbnail item 50 is shown \(shown) but the picture \(picture)"))
        }
        // A square picture has no shape for a thumbnail to disagree with.
        evidence.storedWidth = 3000
        evidence.storedHeight = 3000
        findings = []
        _ = PhotoReport(evidence: evidence, findings: &findings)
        #expect(!findings.contains { $0.code == "thumbnail-shape-differs" })
    }

    @Test func exifDecidesThenXmpAndSidecarsOnlyCompare() {
        var findings: [Finding] = []
        var report = PhotoReport(evidence: Self.evidence(statements: [Self.exif(6), Self.xmp(8)]), findings: &findings)
        #expect(report.exifOrientation == 6 && report.orientationSource == .exif)
        #expect(Self.codes(findings) == ["orientation-conflict"])

        findings = []
        report = PhotoReport(evidence: Self.evidence(statements: [Self.xmp(6)]), findings: &findings)
        #expect(report.exifOrientation == 6 && report.orientationSource == .xmp && findings.isEmpty)
        #expect(report.displayWidth == 3024 && report.layout == .portrait)

        findings = []
        let sidecar = OrientationStatement(kind: .sidecar, location: "p.xmp", rawValue: 8)
        report = PhotoReport(evidence: Self.evidence(statements: [Self.exif(1), sidecar]), findings: &findings)
        #expect(report.exifOrientation == 1 && report.sources.map(\.source) == [.exif, .sidecar])
        #expect(Self.codes(findings) == ["sidecar-conflict"])

        findings = []
        report = PhotoReport(evidence: Self.evidence(statements: []), findings: &findings)
        #expect(report.exifOrientation == 1 && report.orientationSource == .none && findings.isEmpty)
    }

    @Test func invalidExifShowsAsStoredAndIsAFinding() {
        var findings: [Finding] = []
        let report = PhotoReport(evidence: Self.evidence(statements: [Self.exif(0), Self.xmp(6)]), findings: &findings)
        // Browsers show an invalid tag as stored; XMP does not step in behind it.
        #expect(report.exifOrientation == 1 && report.orientationSource == .none)
        #expect(Self.codes(findings).contains("exif-invalid"))
    }

    @Test func mirroredPhotoIsAFinding() {
        var findings: [Finding] = []
        let report = PhotoReport(evidence: Self.evidence(statements: [Self.exif(5)]), findings: &findings)
        #expect(report.mirrored && report.rotation == 270)
        #expect(Self.codes(findings) == ["mirrored"])
    }

    @Test func pixelsTurnedButTagLeft() {
        var evidence = Self.evidence(width: 3024, height: 4032, statements: [Self.exif(6)])
        var exif = EXIFMetadata(byteOrder: "II")
        exif.pixelXDimension = 4032
        exif.pixelYDimension = 3024
        evidence.exif = exif
        var findings: [Finding] = []
        _ = PhotoReport(evidence: evidence, findings: &findings)
        #expect(Self.codes(findings) == ["pixels-already-rotated"])

        // The same dimensions with the stored size matching them: a normal phone photo.
        evidence.storedWidth = 4032
        evidence.storedHeight = 3024
        findings = []
        _ = PhotoReport(evidence: evidence, findings: &findings)
        #expect(findings.isEmpty)

        // The EXIF thumbnail's shape is evidence too.
        evidence.storedWidth = 3024
        evidence.storedHeight = 4032
        exif.pixelXDimension = nil
        exif.pixelYDimension = nil
        exif.thumbnail = EmbeddedImage(
            codec: "jpeg", offset: nil, length: 100, width: 160, height: 120, location: "IFD1")
        evidence.exif = exif
        findings = []
        _ = PhotoReport(evidence: evidence, findings: &findings)
        #expect(Self.codes(findings) == ["pixels-already-rotated"])
    }

    @Test func cameraOnlyWhereTheMetadataSaysIt() {
        var evidence = Self.evidence(statements: [Self.exif(5)])
        var findings: [Finding] = []
        // Mirrored, but a photo gets no preferredTransform heuristic.
        #expect(PhotoReport(evidence: evidence, findings: &findings).camera == nil)
        var exif = EXIFMetadata(byteOrder: "MM")
        exif.lensModel = "iPhone 7 back camera 3.99mm f/1.8"
        evidence.exif = exif
        let report = PhotoReport(evidence: evidence, findings: &findings)
        #expect(report.camera == .back)
        #expect(report.cameraEvidence == "EXIF LensModel = iPhone 7 back camera 3.99mm f/1.8")
        #expect(report.gps == false)
    }

    @Test func cleanApertureCropsWhereverItStands() {
        // clap first: measured on the stored picture.
        let first: [HEIFItemTransform] = [
            .cleanAperture(width: 100, height: 50, horizontalOffset: 0, verticalOffset: 0),
            .rotation(anticlockwiseQuarterTurns: 1),
        ]
        #expect(HEIFItemTransform.displaySize(width: 200, height: 100, transforms: first) == (50, 100))
        #expect(
            HEIFItemTransform.storedCrop(width: 200, height: 100, transforms: first)
                == PixelRect(x: 50, y: 25, width: 100, height: 50))
        // clap after a quarter turn: measured on the turned picture (100 wide, 200 high), its
        // top-left 100x50 corner is the stored picture's right-hand strip... of the top rows.
        let after: [HEIFItemTransform] = [
            .rotation(anticlockwiseQuarterTurns: 1),
            .cleanAperture(width: 100, height: 50, horizontalOffset: 0, verticalOffset: -75),
        ]
        #expect(HEIFItemTransform.displaySize(width: 200, height: 100, transforms: after) == (100, 50))
        // Turned anticlockwise, the stored picture's right edge is on top: the top 50 rows of
        // the turned picture are the stored picture's right-most 50 columns.
        #expect(
            HEIFItemTransform.storedCrop(width: 200, height: 100, transforms: after)
                == PixelRect(x: 150, y: 0, width: 50, height: 100))
        #expect(
            HEIFItemTransform.storedCrop(width: 200, height: 100, transforms: [.rotation(anticlockwiseQuarterTurns: 1)])
                == nil)
    }

    @Test func photoReportJSONHasEveryKey() throws {
        let report = MediaReport(photo: Self.heif([.rotation(anticlockwiseQuarterTurns: 3)], exif: 6))
        let text = try JSONText(pretty: false).encode(report)
        for key in [
            "\"schema_version\":7", "\"video\":null", "\"content\":null", "\"photo\":{", "\"format_detail\":null",
            "\"heif_transforms\":[",
            "\"motion_video\":null", "\"camera\":null", "\"gps\":null", "\"location\":null",
            "\"orientation_source\":\"heif\"",
        ] {
            #expect(text.contains(key), "missing \(key)")
        }
        #expect(report.displayOrientation == .right)
    }
}
