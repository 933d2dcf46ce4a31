/// `tiff:Orientation` in an XMP packet, found by a small scanner rather than an XML parser: XMP
/// writers put it either as an attribute of `rdf:Description` (`tiff:Orientation="6"`) or as an
/// element (`<tiff:Orientation>6</tiff:Orientation>`), under whatever prefix the packet binds to
/// the TIFF namespace.
package enum XMPOrientation {
    package static let tiffNamespace = "http://ns.adobe.com/tiff/1.0/"
    /// Packets larger than this are not scanned (XMP in a JPEG is at most 64 KiB; sidecars of a
    /// few megabytes exist for heavily edited raws).
    package static let maximumLength = PhotoBytes.maximumMetadataLength

    /// The first `tiff:Orientation` value in `packet`, as stored; nil when absent or not a number.
    package static func value(in packet: [UInt8]) -> Int? {
        guard packet.count <= maximumLength else { return nil }
        for prefix in prefixes(boundTo: tiffNamespace, in: packet) {
            if let value = orientation(prefix: prefix, in: packet) { return value }
        }
        return nil
    }

    static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: ":"), 0x80...0xFF:
            true
        default: false
        }
    }

    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    /// Every position where `needle` occurs in `haystack`.
    static func occurrences(of needle: [UInt8], in haystack: [UInt8]) -> [Int] {
        guard !needle.isEmpty, haystack.count >= needle.count else { return [] }
        var found: [Int] = []
        let first = needle[0]
        var index = 0
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == first, haystack[index..<index + needle.count].elementsEqual(needle) {
                found.append(index)
                index += needle.count
            } else {
                index += 1
            }
        }
        return found
    }

    /// The prefixes `xmlns:prefix="namespace"` declares, in document order, each once.
    static func prefixes(boundTo namespace: String, in packet: [UInt8]) -> [[UInt8]] {
        let uri = Array(namespace.utf8)
        var prefixes: [[UInt8]] = []
        for start in occurrences(of: Array("xmlns:".utf8), in: packet) {
            var index = start + 6
            let nameStart = index
            while index < packet.count, isNameByte(packet[index]), packet[index] != UInt8(ascii: ":") { index += 1 }
            let prefix = Array(packet[nameStart..<index])
            while index < packet.count, isSpace(packet[index]) { index += 1 }
            guard !prefix.isEmpty, index < packet.count, packet[index] == UInt8(ascii: "=") else { continue }
            index += 1
            while index < packet.count, isSpace(packet[index]) { index += 1 }
            guard index < packet.count, packet[index] == UInt8(ascii: "\"") || packet[index] == UInt8(ascii: "'") else {
                continue
            }
            let quote = packet[index]
            index += 1
            guard index + uri.count < packet.count, packet[index..<index + uri.count].elementsEqual(uri),
                packet[index + uri.count] == quote
            else { continue }
            if !prefixes.contains(prefix) { prefixes.append(prefix) }
        }
        return prefixes
    }

    /// `prefix:Orientation` as an attribute or an element.
    static func orientation(prefix: [UInt8], in packet: [UInt8]) -> Int? {
        orientationRange(prefix: prefix, in: packet).flatMap { number(packet[$0]) }
    }

    /// Where the value of the first `tiff:Orientation` that holds a number lies in `packet`.
    package static func valueRange(in packet: [UInt8]) -> Range<Int>? {
        guard packet.count <= maximumLength else { return nil }
        for prefix in prefixes(boundTo: tiffNamespace, in: packet) {
            if let range = orientationRange(prefix: prefix, in: packet) { return range }
        }
        return nil
    }

    /// `packet` with its `tiff:Orientation` set to 1, the same length (the digits become `1` and
    /// spaces, which the value may hold); nil when it states none or already says 1.
    package static func upright(_ packet: [UInt8]) -> [UInt8]? {
        guard let range = valueRange(in: packet), number(packet[range]) != 1 else { return nil }
        var edited = packet
        let digits = range.filter { !isSpace(packet[$0]) }
        for (index, position) in digits.enumerated() { edited[position] = index == 0 ? UInt8(ascii: "1") : 0x20 }
        return edited
    }

    /// The first range of `prefix:Orientation`'s value (an attribute's or an element's text) that holds a number.
    static func orientationRange(prefix: [UInt8], in packet: [UInt8]) -> Range<Int>? {
        orientationRanges(prefix: prefix, in: packet).first
    }

    /// Every range of `prefix:Orientation`'s value (an attribute's or an element's text) that holds
    /// a number, in the packet's order (the reader takes the first; the fix rewrites them all).
    static func orientationRanges(prefix: [UInt8], in packet: [UInt8]) -> [Range<Int>] {
        let name = prefix + Array(":Orientation".utf8)
        var ranges: [Range<Int>] = []
        for start in occurrences(of: name, in: packet) {
            let end = start + name.count
            // A whole name: not `xtiff:Orientation`, `tiff:OrientationX` or a closing tag.
            guard start > 0, end < packet.count, !isNameByte(packet[end]) else { continue }
            let before = packet[start - 1]
            var index = end
            var text: Range<Int>
            if before == UInt8(ascii: "<") {
                // Element: attributes (rare) up to `>`, then the text.
                while index < packet.count, packet[index] != UInt8(ascii: ">") { index += 1 }
                guard index < packet.count, packet[index - 1] != UInt8(ascii: "/") else { continue }
                index += 1
                let textStart = index
                while index < packet.count, packet[index] != UInt8(ascii: "<") { index += 1 }
                text = textStart..<index
            } else if isSpace(before) {
                while index < packet.count, isSpace(packet[index]) { index += 1 }
                guard index < packet.count, packet[index] == UInt8(ascii: "=") else { continue }
                index += 1
                while index < packet.count, isSpace(packet[index]) { index += 1 }
                guard index < packet.count, packet[index] == UInt8(ascii: "\"") || packet[index] == UInt8(ascii: "'")
                else {
                    continue
                }
                let quote = packet[index]
                index += 1
                let valueStart = index
                while index < packet.count, packet[index] != quote { index += 1 }
                text = valueStart..<index
            } else {
                continue
            }
            if number(packet[text]) != nil { ranges.append(text) }
        }
        return ranges
    }

    /// A decimal number with optional surrounding white space, up to 9 digits.
    static func number(_ text: ArraySlice<UInt8>) -> Int? {
        let digits = text.drop(while: isSpace).reversed().drop(while: isSpace).reversed()
        guard !digits.isEmpty, digits.count <= 9,
            digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }
}
