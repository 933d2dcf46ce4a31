import Foundation
import Testing
import VidorientCore

struct Sample: Encodable {
    var name: String
    var count: Int
    var ratio: Double
    var missing: String?
    var nested: [String: [Double?]]
    var flag: Bool

    enum CodingKeys: String, CodingKey { case name, count, ratio, missing, nested, flag }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(count, forKey: .count)
        try c.encode(ratio, forKey: .ratio)
        try c.encode(missing, forKey: .missing)
        try c.encode(nested, forKey: .nested)
        try c.encode(flag, forKey: .flag)
    }
}

@Suite struct JSONTextTests {
    let sample = Sample(
        name: "quote \" back \\ tab \t nl \n bell \u{7} é 🎥 /", count: -3, ratio: 29.97, missing: nil,
        nested: ["b": [1, nil, 0.5], "a": []], flag: true)

    @Test func compactSortedAndExact() throws {
        let text = try JSONText(pretty: false).encode(sample)
        #expect(
            text
                == #"{"count":-3,"flag":true,"missing":null,"name":"quote \" back \\ tab \t nl \n bell \u0007 é 🎥 /","nested":{"a":[],"b":[1,null,0.5]},"ratio":29.97}"#
        )
    }

    @Test func prettyParsesToTheSameAsFoundation() throws {
        for pretty in [true, false] {
            let ours = try JSONSerialization.jsonObject(with: Data(try JSONText(pretty: pretty).encode(sample).utf8))
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let theirs = try JSONSerialization.jsonObject(with: encoder.encode(sample))
            #expect((ours as? NSDictionary) == (theirs as? NSDictionary))
        }
    }

    @Test(arguments: [(90.0, "90"), (-0.0, "0"), (2.2, "2.2"), (0.000015, "1.5e-05"), (1e20, "1e+20"), (29.999996, "29.999996")])
    func numbers(value: Double, text: String) throws {
        #expect(try JSONText(pretty: false).encode([value]) == "[\(text)]")
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func nonFiniteNumbersAreRefused(value: Double) {
        #expect(throws: EncodingError.self) { try JSONText().encode([value]) }
    }

    @Test func reportsRoundTrip() throws {
        let report = MediaReport(
            probe: MediaProbe(
                path: "a.mov", format: FormatReport(name: "mov", streamCount: 1),
                streams: [StreamReport(index: 0, type: "video")],
                video: VideoEvidence(streamIndex: 0, containerMatrix: DisplayMatrix(.leftMirrored, width: 4, height: 2))))
        let decoded = try JSONDecoder().decode(MediaReport.self, from: Data(JSONText().encode(report).utf8))
        #expect(decoded == report)
    }
}
