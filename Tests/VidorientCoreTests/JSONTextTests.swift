import Foundation
import Testing
import VidorientCore

/// No optional at the top: Foundation, which it is compared with, leaves a nil one's key out.
struct Sample: Encodable {
    var name: String
    var count: Int
    var ratio: Double
    var nested: [String: [Double?]]
    var flag: Bool
}

/// A record with paths, as the project's outputs have them.
struct Paths: Codable, Equatable {
    @ReportedPath var path: String
    @ReportedPath var written: String?
    var note: String?

    init(path: String, written: String?, note: String? = nil) {
        self.path = path
        self.written = written
        self.note = note
    }

    enum CodingKeys: String, CodingKey { case path, written, note }

    init(from decoder: any Decoder) throws {
        path = try decoder.decodePath(forKey: CodingKeys.path)
        written = try decoder.decodePathIfPresent(forKey: CodingKeys.written)
        note = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(String.self, forKey: .note)
    }
}

/// A report type as the project writes them: synthesized `Codable`, `CodingKeys` only for the
/// snake_case names, optionals of each kind the keyed container has an `encodeIfPresent` for.
struct Synthesized: Codable, Equatable {
    struct Inner: Codable, Equatable {
        var label: String?
        var count: Int?
    }

    var name: String
    var note: String?
    var flag: Bool?
    var ratio: Double?
    var single: Float?
    var count: Int?
    var small: Int8?
    var short: Int16?
    var medium: Int32?
    var large: Int64?
    var unsigned: UInt?
    var byte: UInt8?
    var word: UInt16?
    var double: UInt32?
    var quad: UInt64?
    var inner: Inner?
    var list: [Inner]
    var createdAt: String?

    enum CodingKeys: String, CodingKey {
        case name, note, flag, ratio, single, count, small, short, medium, large, unsigned, byte, word, double, quad
        case inner, list, createdAt = "created_at"
    }

    static let empty = Synthesized(name: "x", list: [Inner()])
}

@Suite struct JSONTextTests {
    let sample = Sample(
        name: "quote \" back \\ tab \t nl \n bell \u{7} é 🎥 /", count: -3, ratio: 29.97,
        nested: ["b": [1, nil, 0.5], "a": []], flag: true)

    @Test func compactSortedAndExact() throws {
        let text = try JSONText(pretty: false).encode(sample)
        #expect(
            text
                == #"{"count":-3,"flag":true,"name":"quote \" back \\ tab \t nl \n bell \u0007 é 🎥 /","nested":{"a":[],"b":[1,null,0.5]},"ratio":29.97}"#
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

    /// A path is two keys, its display form and (when that is not the path) its bytes, and reads
    /// back from them whatever its bytes.
    @Test func aPathIsWrittenWithItsBytesAndReadBack() throws {
        let latin1 = String(pathBytes: Array("caf".utf8) + [0xE9, 0x2E, 0x6A, 0x70, 0x67])
        let plain = Paths(path: "a/b.mov", written: nil)
        #expect(
            try JSONText(pretty: false).encode(plain)
                == #"{"note":null,"path":"a/b.mov","path_bytes":null,"written":null,"written_bytes":null}"#)
        let odd = Paths(path: latin1, written: "x/" + latin1)
        #expect(
            try JSONText(pretty: false).encode(odd)
                == #"{"note":null,"path":"caf\\xE9.jpg","path_bytes":"636166e92e6a7067","written":"x/caf\\xE9.jpg","#
                + #""written_bytes":"782f636166e92e6a7067"}"#)
        for record in [plain, odd] {
            let decoded = try JSONDecoder().decode(Paths.self, from: Data(JSONText().encode(record).utf8))
            #expect(decoded == record)
            #expect(decoded.path.pathBytes == record.path.pathBytes)
        }
        // Foundation's encoder, which knows nothing of the pair, gets the display form.
        let foundation = try JSONSerialization.jsonObject(with: JSONEncoder().encode(odd)) as? [String: Any]
        #expect(foundation?["path"] as? String == #"caf\xE9.jpg"#)
        // A `path_bytes` that is not hex, or names nothing, is refused.
        for bytes in [#""zz""#, #""""#] {
            #expect(throws: DecodingError.self) {
                try JSONDecoder().decode(Paths.self, from: Data(#"{"path":"a","path_bytes":\#(bytes)}"#.utf8))
            }
        }
    }

    @Test(arguments: [
        (90.0, "90"), (-0.0, "0"), (2.2, "2.2"), (0.000015, "1.5e-05"), (1e20, "1e+20"), (29.999996, "29.999996"),
    ])
    func numbers(value: Double, text: String) throws {
        #expect(try JSONText(pretty: false).encode([value]) == "[\(text)]")
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func nonFiniteNumbersAreRefused(value: Double) {
        #expect(throws: EncodingError.self) { try JSONText().encode([value]) }
    }

    @Test func everyKeyIsPresentAndAbsentIsNull() throws {
        let text = try JSONText(pretty: false).encode(Synthesized.empty)
        #expect(
            text
                == #"{"byte":null,"count":null,"created_at":null,"double":null,"flag":null,"inner":null,"large":null,"#
                + #""list":[{"count":null,"label":null}],"medium":null,"name":"x","note":null,"quad":null,"ratio":null,"#
                + #""short":null,"single":null,"small":null,"unsigned":null,"word":null}"#)
        // Nested, with one optional set and one not.
        var nested = Synthesized.empty
        nested.inner = .init(label: nil, count: 3)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(JSONText().encode(nested).utf8)) as? [String: Any])
        let inner = try #require(object["inner"] as? [String: Any])
        #expect(inner.keys.sorted() == ["count", "label"])
        #expect(inner["count"] as? Int == 3)
        #expect(inner["label"] is NSNull)
        #expect(object["note"] is NSNull)
        // The nulls are JSONText's doing: Foundation's encoder leaves the same keys out.
        let foundation = try #require(
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(Synthesized.empty)) as? [String: Any])
        #expect(foundation.keys.sorted() == ["list", "name"])
    }

    @Test func presentOptionalsAreTheirValues() throws {
        let value = Synthesized(
            name: "x", note: "n", flag: false, ratio: 0.5, single: 2, count: -1, small: -8, short: -16, medium: -32,
            large: -64, unsigned: 1, byte: 8, word: 65535, double: 32, quad: 64, inner: .init(label: "l", count: 0),
            list: [], createdAt: "2024")
        #expect(
            try JSONText(pretty: false).encode(value)
                == #"{"byte":8,"count":-1,"created_at":"2024","double":32,"flag":false,"inner":{"count":0,"label":"l"},"#
                + #""large":-64,"list":[],"medium":-32,"name":"x","note":"n","quad":64,"ratio":0.5,"short":-16,"single":2,"#
                + #""small":-8,"unsigned":1,"word":65535}"#)
    }

    @Test func whatIsWrittenDecodesBack() throws {
        var value = Synthesized.empty
        value.inner = .init(label: "l", count: nil)
        value.small = 7
        for original in [Synthesized.empty, value] {
            let text = try JSONText().encode(original)
            #expect(try JSONDecoder().decode(Synthesized.self, from: Data(text.utf8)) == original)
        }
    }

    @Test func reportsRoundTrip() throws {
        let report = MediaReport(
            probe: MediaProbe(
                path: "a.mov", format: FormatReport(name: "mov", streamCount: 1),
                streams: [StreamReport(index: 0, type: "video")],
                video: VideoEvidence(streamIndex: 0, containerMatrix: DisplayMatrix(.leftMirrored, width: 4, height: 2))
            ))
        let decoded = try JSONDecoder().decode(MediaReport.self, from: Data(JSONText().encode(report).utf8))
        #expect(decoded == report)
    }
}

/// `JSONStructure.firstRepeatedKey`: a key named twice in one object, however it is spelled; the same key in
/// two objects, in strings or as a value, is no repetition.
struct JSONStructureTests {
    @Test(arguments: [
        (#"{"path":"a","path":"b"}"#, "path"),
        (#"{"p\u0061th":"a","path":"b"}"#, "path"),
        (#"[{"x":1},{"a":{"b":1,"c":[1,{"d":2,"d":3}]}}]"#, "d"),
        (#"{"a":"}{\"a\":","a":1}"#, "a"),
        (#"{"\ud83d\ude00":1,"😀":2}"#, "😀"),
    ])
    func aRepeatedKeyIsFound(text: String, key: String) {
        #expect(JSONStructure.firstRepeatedKey(in: text) == key)
    }

    @Test(arguments: [
        #"{"a":1,"b":{"a":2},"c":["a","a"]}"#, #"{"a":"a","b":"\"a\""}"#, #"[{"a":1},{"a":2}]"#, "", "{",
        #"{"a\\":1,"a":2}"#,
    ])
    func noRepetitionIsNone(text: String) {
        #expect(JSONStructure.firstRepeatedKey(in: text) == nil)
    }

    /// JSON nested deeper than Foundation's decoder goes (512) is valid: said as too deep, not as
    /// "not valid json" (issue 28).
    @Test(arguments: [
        (#"{"a":[1,{"b":[]}],"c":"[[[["}"#, 4), ("[]", 1), ("1", 0), (String(repeating: "[", count: 600), 600),
    ])
    func depth(text: String, depth: Int) {
        #expect(JSONStructure.depth(of: text) == depth)
    }
}
