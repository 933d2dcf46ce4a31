import VidorientCore
import VidorientIO

/// The container's tags, named as FFmpeg's mov demuxer names them (libavformat/mov.c,
/// `mov_read_udta_string`), so that `inspect`'s `format.tags` reads the same with or without
/// FFmpeg: `ftyp` gives `major_brand`, `minor_version` and `compatible_brands`; `mvhd` gives
/// `creation_time`; QuickTime `udta` strings (`©day`, `©xyz`…) and iTunes `ilst` items take
/// FFmpeg's names (`date`, `location`, `encoder`…), with a `-eng`-style twin when the string
/// names a language; QuickTime `keys` items keep their reverse-DNS names.
enum QuickTimeTags {
    /// mov.c's key for each item type it reads; item types not listed are not reported.
    static let names: [FourCC: String] = [
        "aART": "album_artist", "akID": "account_type", "apID": "account_id", "catg": "category",
        "cpil": "compilation", "cprt": "copyright", "desc": "description", "disk": "disc", "egid": "episode_uid",
        "hdvd": "hd_video", "keyw": "keywords", "ldes": "synopsis", "manu": "make", "modl": "model",
        "pcst": "podcast", "pgap": "gapless_playback", "purd": "purchase_date", "rtng": "rating",
        "soaa": "sort_album_artist", "soal": "sort_album", "soar": "sort_artist", "soco": "sort_composer",
        "sonm": "sort_name", "sosn": "sort_show", "stik": "media_type", "trkn": "track", "tven": "episode_id",
        "tvnn": "network", "tvsh": "show",
        "\u{a9}ART": "artist", "\u{a9}PRD": "producer", "\u{a9}alb": "album", "\u{a9}aut": "artist",
        "\u{a9}chp": "chapter", "\u{a9}cmt": "comment", "\u{a9}com": "composer", "\u{a9}cpy": "copyright",
        "\u{a9}day": "date", "\u{a9}dir": "director", "\u{a9}dis": "disclaimer", "\u{a9}ed1": "edit_date",
        "\u{a9}enc": "encoder", "\u{a9}fmt": "original_format", "\u{a9}gen": "genre", "\u{a9}grp": "grouping",
        "\u{a9}hst": "host_computer", "\u{a9}inf": "comment", "\u{a9}lyr": "lyrics", "\u{a9}mak": "make",
        "\u{a9}mod": "model", "\u{a9}nam": "title", "\u{a9}ope": "original_artist", "\u{a9}prd": "producer",
        "\u{a9}prf": "performers", "\u{a9}req": "playback_requirements", "\u{a9}src": "original_source",
        "\u{a9}st3": "subtitle", "\u{a9}swr": "encoder", "\u{a9}too": "encoder", "\u{a9}trk": "track",
        "\u{a9}url": "URL", "\u{a9}wrn": "warning", "\u{a9}wrt": "composer", "\u{a9}xyz": "location",
    ]

    /// Items whose value mov.c reads as a single byte printed in decimal.
    static let byteValued: Set<FourCC> = ["akID", "cpil", "egid", "hdvd", "pcst", "pgap", "rtng", "stik"]
    /// Items mov.c reads in ways this reader does not follow (genre numbers, places, chapters,
    /// raw vendor blobs): a file holding one is described by FFmpeg instead.
    static let unfollowed: Set<FourCC> = ["gnre", "HMMT", "tves", "tvsn", "@PRM", "@PRQ", "FIRM", "covr", "chpl"]

    /// Old Macintosh language codes mov.c maps (isom.c's table, its first entries).
    static let macintoshLanguages = [
        "eng", "fra", "ger", "ita", "dut", "sve", "spa", "dan", "por", "nor", "heb", "jpn", "ara", "fin", "gre",
        "ice", "mlt", "tur",
    ]

    /// mov.c's `ff_mov_lang_to_iso639`: a packed ISO 639-2/T code, or an old Macintosh code. Nil
    /// when there is no language; throws for a Macintosh code beyond the table kept here.
    static func language(_ code: UInt16) throws(ISOBMFFError) -> String? {
        if code >= 0x400 && code != 0x7FFF {
            let letters = [10, 5, 0].map { UInt8(0x60 + (code >> $0) & 0x1F) }
            return String(decoding: letters, as: UTF8.self)
        }
        if Int(code) < macintoshLanguages.count { return macintoshLanguages[Int(code)] }
        if code == 0x7FFF || code > 150 { return nil }
        throw .unsupported("language code \(code) (an old Macintosh one)")
    }

    /// mov.c's `mov_metadata_creation_time`: seconds since 1904 (or, before 1970, since 1970),
    /// as `YYYY-MM-DDTHH:MM:SS.000000Z`; nil for zero.
    static func creationTime(_ stored: UInt64, version: UInt8) -> String? {
        var time = Int64(bitPattern: stored)
        if version == 1 {
            guard time >= 0 else { return nil }
        } else if time > 0 && time < 2_082_844_800 {
            time += 2_082_844_800
        }
        guard time != 0 else { return nil }
        time -= 2_082_844_800
        return timestamp(time)
    }

    /// UTC civil date from Unix seconds (Howard Hinnant's days-to-civil).
    static func timestamp(_ seconds: Int64) -> String {
        let days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
        let secondOfDay = seconds - days * 86400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let yearText = String(year)
        return "\(String(repeating: "0", count: max(0, 4 - yearText.count)))\(yearText)-\(two(month))-\(two(day))T"
            + "\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60)).000000Z"
    }

    /// UTF-8 with trailing NULs removed.
    static func text(_ bytes: ArraySlice<UInt8>) -> String {
        var end = bytes.endIndex
        while end > bytes.startIndex, bytes[end - 1] == 0 { end -= 1 }
        return String(decoding: bytes[bytes.startIndex..<end], as: UTF8.self)
    }

    /// FFmpeg's `av_fourcc2str`: letters, digits and ` .-_` as themselves, any other byte `[n]`.
    static func fourCCText(_ bytes: [UInt8]) -> String {
        bytes.map { byte -> String in
            let printable =
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || [0x20, 0x2E, 0x2D, 0x5F].contains(byte)
            return printable ? String(UnicodeScalar(byte)) : "[\(byte)]"
        }.joined()
    }

    /// Reads the tags of `moov/udta` and `moov/meta` boxes, in file order, into `tags`.
    static func read<Source: ByteSource>(
        userData: BoxHeader, into tags: inout [String: String], walker: inout BoxWalker<Source>
    ) throws(ISOBMFFError) {
        for item in try walker.children(of: userData, depth: 3) {
            if item.type == "meta" {
                try readMeta(item, into: &tags, walker: &walker)
                continue
            }
            if unfollowed.contains(item.type) { throw .unsupported("'\(item.type)' user data") }
            if item.type == "loci" {
                try readLocation(item, into: &tags, walker: &walker)
                continue
            }
            guard let key = names[item.type], item.payloadSize > 4 else { continue }
            // A QuickTime string: 16-bit length and language, then the text.
            var c = try walker.payload(of: item, limit: 1 << 16)
            let length = Int(try c.uint16())
            guard length <= item.payloadSize else { throw .unsupported("'\(item.type)' user data is not a string") }
            let code = try c.uint16()
            let language = try Self.language(code)
            let bytes = Array(try c.take(min(length, c.remaining)))
            let value: String
            if code < 0x400 || code == 0x7FFF {
                value = try macintoshText(bytes)
            } else {
                value = QuickTimeTags.text(bytes[...])
            }
            tags[key] = value
            if let language, language != "und" { tags["\(key)-\(language)"] = value }
        }
    }

    /// A 3GPP `loci` box (3GPP TS 26.244 §8.2.2.5) as mov.c's `mov_metadata_loci` writes it:
    /// `location` (and `location-eng`…) in the `©xyz` style, `+DD.DDDD+DDD.DDDD[+altitude]/place`.
    static func readLocation<Source: ByteSource>(
        _ box: BoxHeader, into tags: inout [String: String], walker: inout BoxWalker<Source>
    ) throws(ISOBMFFError) {
        var c = try walker.payload(of: box, limit: 4096)
        guard c.remaining >= 4 + 2 + 1 + 1 + 12 else { throw .unsupported("a 'loci' box too short for mov.c") }
        try c.skip(4)
        let language = try Self.language(try c.uint16())
        var place: [UInt8] = []
        while c.remaining > 0 {
            let byte = try c.uint8()
            if byte == 0 { break }
            place.append(byte)
        }
        guard place.count < 100, c.remaining >= 1 + 12 else { throw .unsupported("a 'loci' box mov.c does not read") }
        try c.skip(1)  // role
        func coordinate() throws(ISOBMFFError) -> Double { Double(Float(try c.int32()) / Float(65536)) }
        let longitude = try coordinate(), latitude = try coordinate(), altitude = try coordinate()
        var text = formatted("%+08.4f%+09.4f", latitude, longitude)
        if altitude != 0 { text += formatted("%+f", altitude) }
        text += "/" + String(decoding: place, as: UTF8.self)
        tags["location"] = text
        if let language, language != "und" { tags["location-\(language)"] = text }
    }

    /// C's printf formatting, for the few values FFmpeg writes with it.
    static func formatted(_ format: String, _ values: Double...) -> String {
        var buffer = [CChar](repeating: 0, count: 128)
        _ = withVaList(values) { arguments in vsnprintf(&buffer, buffer.count, format, arguments) }
        return String(cMessage: buffer)
    }

    /// Old QuickTime strings are Mac OS Roman: ASCII reads alike; other bytes are not followed.
    static func macintoshText(_ bytes: [UInt8]) throws(ISOBMFFError) -> String {
        guard bytes.allSatisfy({ $0 < 0x80 }) else { throw .unsupported("a Mac OS Roman string") }
        return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// A `meta` box: `hdlr` `mdta` with `keys`, or `mdir` (iTunes), and the `ilst` of items.
    static func readMeta<Source: ByteSource>(
        _ meta: BoxHeader, into tags: inout [String: String], walker: inout BoxWalker<Source>
    ) throws(ISOBMFFError) {
        var skip: Int64 = 4
        if meta.payloadSize >= 8 {
            let peek = try walker.source.read(at: meta.payloadOffset + 4, count: 4)
            if [FourCC("hdlr"), "keys", "ilst"].map(\.bytes).contains(peek) { skip = 0 }
        }
        let children = try walker.children(of: meta, skipping: skip, depth: 4)
        var keys: [String] = []
        var isKeyed = false
        for child in children {
            switch child.type {
            case "hdlr":
                var c = try walker.payload(of: child, limit: 12)
                try c.skip(8)
                isKeyed = try c.fourCC() == "mdta" || isKeyed
            case "keys":
                var c = try walker.payload(of: child, limit: (1 << 20))
                try c.skip(4)
                for _ in 0..<(try c.uint32()) {
                    let size = Int(try c.uint32())
                    guard size >= 8 else { throw .malformed("'keys' entry at \(child.offset) has size \(size)") }
                    try c.skip(4)
                    keys.append(QuickTimeTags.text(try c.take(size - 8)))
                }
            case "ilst":
                try readItemList(child, keys: isKeyed ? keys : [], into: &tags, walker: &walker)
            default: break
            }
        }
    }

    static func readItemList<Source: ByteSource>(
        _ ilst: BoxHeader, keys: [String], into tags: inout [String: String], walker: inout BoxWalker<Source>
    ) throws(ISOBMFFError) {
        for item in try walker.children(of: ilst, depth: 5) {
            if unfollowed.contains(item.type) { throw .unsupported("'\(item.type)' item") }
            let parts = try walker.children(of: item, depth: 6)
            if item.type == "----" {
                // iTunes freeform: `mean`, `name`, `data`; mov.c keeps the name as the key.
                var name: String?
                var mean = false
                var value: String?
                for part in parts {
                    var c = try walker.payload(of: part, limit: 1 << 16)
                    switch part.type {
                    case "mean": mean = true
                    case "name":
                        try c.skip(4)
                        name = QuickTimeTags.text(c.rest())
                    case "data" where part.payloadSize > 8:
                        try c.skip(8)
                        value = String(decoding: c.rest(), as: UTF8.self)
                    default: break
                    }
                }
                if mean, let name, let value { tags[name] = value }
                continue
            }
            var key = names[item.type]
            if key == nil, !keys.isEmpty, item.type.rawValue >= 1, Int(item.type.rawValue) <= keys.count {
                key = keys[Int(item.type.rawValue) - 1]
            }
            guard let key, let data = parts.first, data.type == "data", data.payloadSize >= 8 else { continue }
            var c = try walker.payload(of: data, limit: 1 << 20)
            let type = try c.uint32() & 0x00FF_FFFF
            try c.skip(4)
            let bytes = Array(c.rest())
            if item.type == "trkn" || item.type == "disk" {
                guard bytes.count >= 6 else { continue }
                let current = Int(bytes[2]) << 8 | Int(bytes[3])
                let total = Int(bytes[4]) << 8 | Int(bytes[5])
                tags[key] = total == 0 ? "\(current)" : "\(current)/\(total)"
                continue
            }
            if byteValued.contains(item.type) {
                guard let first = bytes.first else { continue }
                tags[key] = "\(first)"
                continue
            }
            switch type {
            case 0, 3: tags[key] = try macintoshText(bytes)
            case 1, 4: tags[key] = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            case 21:
                guard (1...4).contains(bytes.count) else {
                    tags[key] = ""
                    continue
                }
                let unsigned = bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                let shift = UInt32(32 - 8 * bytes.count)
                tags[key] = "\(Int32(bitPattern: unsigned << shift) >> Int32(shift))"
            case 22:
                guard (1...4).contains(bytes.count) else {
                    tags[key] = ""
                    continue
                }
                tags[key] = "\(bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) })"
            case 23 where bytes.count >= 4:
                throw .unsupported("a floating-point metadata item")
            default:
                // mov.c skips UTF-16, pictures and other typed values.
                continue
            }
        }
    }
}
