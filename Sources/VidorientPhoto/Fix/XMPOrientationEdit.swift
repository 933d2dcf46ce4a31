extension XMPOrientation {
    /// Where each `tiff:Orientation` value (attribute or element form, under every prefix bound
    /// to the TIFF namespace) sits in `packet`: the digits without surrounding white space, and
    /// their value. The fix rewrites these digits, so that XMP says what EXIF says.
    package static func valueLocations(in packet: [UInt8]) -> [(value: Int, digits: Range<Int>)] {
        guard packet.count <= maximumLength else { return [] }
        var found: [(value: Int, digits: Range<Int>)] = []
        for prefix in prefixes(boundTo: tiffNamespace, in: packet) {
            for var range in orientationRanges(prefix: prefix, in: packet) {
                guard let value = number(packet[range]) else { continue }
                while range.lowerBound < range.upperBound, isSpace(packet[range.lowerBound]) {
                    range = range.lowerBound + 1..<range.upperBound
                }
                while range.lowerBound < range.upperBound, isSpace(packet[range.upperBound - 1]) {
                    range = range.lowerBound..<range.upperBound - 1
                }
                found.append((value, range))
            }
        }
        return found
    }
}
