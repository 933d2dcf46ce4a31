extension XMPOrientation {
    /// Where each `tiff:Orientation` value (attribute or element form, under every prefix bound
    /// to the TIFF namespace) sits in `packet`: the digits without surrounding white space, and
    /// their value. The fix rewrites these digits, so that XMP says what EXIF says.
    public static func valueLocations(in packet: [UInt8]) -> [(value: Int, digits: Range<Int>)] {
        guard packet.count <= maximumLength else { return [] }
        var found: [(value: Int, digits: Range<Int>)] = []
        for prefix in prefixes(boundTo: tiffNamespace, in: packet) {
            let name = prefix + Array(":Orientation".utf8)
            for start in occurrences(of: name, in: packet) {
                let end = start + name.count
                guard start > 0, end < packet.count, !isNameByte(packet[end]) else { continue }
                let before = packet[start - 1]
                var index = end
                var text: Range<Int>?
                if before == UInt8(ascii: "<") {
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
                    guard index < packet.count, packet[index] == UInt8(ascii: "\"") || packet[index] == UInt8(ascii: "'") else { continue }
                    let quote = packet[index]
                    index += 1
                    let valueStart = index
                    while index < packet.count, packet[index] != quote { index += 1 }
                    text = valueStart..<index
                }
                guard var range = text, let value = number(packet[range]) else { continue }
                while range.lowerBound < range.upperBound, isSpace(packet[range.lowerBound]) { range = range.lowerBound + 1..<range.upperBound }
                while range.lowerBound < range.upperBound, isSpace(packet[range.upperBound - 1]) { range = range.lowerBound..<range.upperBound - 1 }
                found.append((value, range))
            }
        }
        return found
    }
}
