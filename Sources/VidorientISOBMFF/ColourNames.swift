/// FFmpeg's names for the colour description's code points (libavutil/pixdesc.c), which
/// ISO/IEC 23091-2 numbers; codes FFmpeg does not name are unspecified (nil).
enum ColourNames {
    static let primaries: [Int: String] = [
        0: "reserved", 1: "bt709", 3: "reserved", 4: "bt470m", 5: "bt470bg", 6: "smpte170m", 7: "smpte240m",
        8: "film", 9: "bt2020", 10: "smpte428", 11: "smpte431", 12: "smpte432", 22: "ebu3213",
    ]
    static let transfer: [Int: String] = [
        0: "reserved", 1: "bt709", 3: "reserved", 4: "bt470m", 5: "bt470bg", 6: "smpte170m", 7: "smpte240m",
        8: "linear", 9: "log100", 10: "log316", 11: "iec61966-2-4", 12: "bt1361e", 13: "iec61966-2-1",
        14: "bt2020-10", 15: "bt2020-12", 16: "smpte2084", 17: "smpte428", 18: "arib-std-b67",
    ]
    static let matrix: [Int: String] = [
        0: "gbr", 1: "bt709", 3: "reserved", 4: "fcc", 5: "bt470bg", 6: "smpte170m", 7: "smpte240m", 8: "ycgco",
        9: "bt2020nc", 10: "bt2020c", 11: "smpte2085", 12: "chroma-derived-nc", 13: "chroma-derived-c", 14: "ictcp",
    ]
}
