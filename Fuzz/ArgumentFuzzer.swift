// libFuzzer target for what the command line hands to the libraries (see Fuzz/README.md):
// argument values (times, orientations in every representation, sizes that a file or a user
// merely claims) and path handling (names with any bytes, opened without blocking).
// Built by Fuzz/run.sh arguments, with `swiftc -sanitize=fuzzer,address` against Core's sources.
import VidorientCore
import VidorientIO

#if canImport(Glibc)
import Glibc
#endif

/// One input: parsing never traps, what parses is within its documented range, a thumbnail
/// geometry is refused or within the size rule, a name shown on a terminal holds no control
/// character, and opening any name inside the work folder returns or refuses at once.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    let text = String(decoding: bytes, as: UTF8.self)

    if let time = TimePoint(parsing: text) {
        switch time {
        case .seconds(let value): precondition(value >= 0 && value <= TimePoint.maximumSeconds, "time out of range")
        case .fraction(let value): precondition(value >= 0 && value <= 1, "fraction out of range")
        }
    }
    for representation in Orientation.Representation.allCases {
        _ = try? Orientation.parse(text, as: representation, mirrored: bytes.first.map { $0 & 1 == 1 } ?? false)
    }

    let shown = text.escapingControlCharacters
    precondition(!shown.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, "control left")

    // Path bytes: any bytes survive the String round trip, machine output's hex gives them
    // back, and neither the terminal nor the display form shows an escape character.
    let path = String(pathBytes: bytes)
    precondition(path.pathBytes == bytes, "path bytes lost")
    if let hex = path.pathBytesHex { precondition(String(pathBytesHex: hex)?.pathBytes == bytes, "path_bytes lost") }
    precondition(path.hasEscapedPathBytes == (path.pathBytesHex != nil), "path_bytes inconsistent")
    let passed = path.withPathCString { pointer in Array(UnsafeBufferPointer(start: pointer, count: strlen(pointer) + 1)) }
    precondition(passed.map { UInt8(bitPattern: $0) } == Array(bytes.prefix { $0 != 0 }) + [0], "C path differs")
    for escaped in [path.escapingControlCharacters, path.pathForDisplay] {
        precondition(!escaped.unicodeScalars.contains { (0xF700...0xF7FF).contains($0.value) }, "raw byte shown")
    }

    // Sizes and an aspect ratio as a hostile file claims them.
    if bytes.count >= 14 {
        func int(_ at: Int) -> Int { Int(bytes[at]) << 8 | Int(bytes[at + 1]) }
        var raw: UInt64 = 0
        for byte in bytes[4..<12] { raw = raw << 8 | UInt64(byte) }
        let request = ThumbnailRequest(
            width: bytes[12] & 1 == 0 ? nil : int(0) % 16384 + 1, height: bytes[12] & 2 == 0 ? nil : int(2) % 16384 + 1,
            asStored: bytes[13] & 1 == 1)
        if let geometry = try? ThumbnailGeometry(
            storedWidth: int(0) + 1, storedHeight: int(2) + 1, sampleAspectRatio: Double(bitPattern: raw), video: nil,
            request: request)
        {
            for side in [geometry.scaledWidth, geometry.scaledHeight, geometry.outputWidth, geometry.outputHeight] {
                precondition(side >= 1 && side <= ThumbnailGeometry.maximumSide, "side out of range")
            }
            precondition(geometry.outputWidth * geometry.outputHeight <= ThumbnailGeometry.maximumPixels, "too many pixels")
        }
    }

    // Any name, kept inside the work folder: opening it returns or refuses, never blocks.
    let name = String(pathBytes: bytes.prefix(200).map { $0 == UInt8(ascii: "/") || $0 == 0 ? UInt8(ascii: "_") : $0 })
    if let file = try? RegularFile.open("paths/" + name) { close(file.descriptor) }
    return 0
}
