package import VidorientCore
package import VidorientIO
import VidorientISOBMFF

/// Plans the bytes that give a HEIF, HEIC or AVIF file's primary item the target orientation,
/// losslessly: only its `irot`/`imir` properties (and their `ipma` associations) change, never a
/// coded picture.
///
/// The convention is Core's one rule, `Orientation(heifTransforms:)`: `irot` turns anticlockwise
/// in quarter turns, `imir` axis 0 flips top and bottom and axis 1 swaps left and right, and the
/// transforms apply in `ipma` order. libheif 1.15 agrees on all eight orientations: heif-convert
/// shows every `TestMedia/orient-N.heic` and `.avif` upright (`HEIFStructureTests`), and every file
/// this planner writes decodes to the original picture oriented as the target
/// (`HEIFOrientationFixTests`), `imir` of both axes included.
///
/// The primary item's thumbnail items (`thmb`) are shown with their own `irot`/`imir`, and the
/// auxiliary images (`auxl`: alpha, depth, gain map) of both are decoded with theirs, so each is
/// planned after it the same way, to its own orientation followed by the primary's change;
/// the association changes of every item are one edit (sizes, counts and `iloc` offsets moved
/// once for all of them).
///
/// The smallest change wins for each item, in this order:
/// 1. Only bytes change: the angle byte of an `irot` or the axis byte of an `imir` the item
///    already has, when the target can be composed from the transforms it has, in their
///    `ipma` order (reserved bits kept).
/// 2. Otherwise associations change: an `imir` association is dropped (a mirror cannot be turned
///    off by its bytes), and/or an `irot` then an `imir` are appended after the item's other
///    properties, marked essential: an identical property already in `ipco` is reused (an `ipma`
///    change only), else a 9-byte box is appended to `ipco`. Every enclosing size (`ipco`,
///    `ipma`, `iprp`, `meta`) and the entry's association count follow, and every `iloc` offset
///    into this file (construction method 0) whose data lies after a size change moves with it:
///    `base_offset` when the item has one that is not 0, else each `extent_offset`. `idat`
///    offsets (method 1) are relative and never move. A mirror is never added beside another.
///
/// A property shared with an item other than the primary item and those that follow it is never
/// rewritten (that would turn the other item too), nor one an item planned before relies on; a
/// `clap` after a transform pins that transform (changing it would move the crop). The Exif
/// item's IFD0 Orientation and an XMP item's `tiff:Orientation` are set to the target where they
/// exist (same length), as HEIF readers expect them to agree; where absent they stay absent.
package enum HEIFOrientationFix {
    /// At most this many `irot`/`imir` associations on one item are planned for (real files have
    /// at most two).
    static let maximumTransforms = 4

    package static func plan(_ source: some ByteSource, target: Orientation) throws(PhotoFormatError) -> OrientationEdit
    {
        let structure = try HEIFStructure(source)
        // Moving item offsets in a file whose items run past its end would make more of it wrong.
        if let truncation = structure.truncation {
            throw PhotoFormatError("the file is truncated (\(truncation)): copy it again before fixing it")
        }
        let layout = try HEIFLayout(source)
        var planner = Planner(source: source, structure: structure, layout: layout)
        try planner.planTransforms(target: target)
        try planner.planEXIF(target: target)
        try planner.planXMP(target: target)
        let splices = try planner.finish()
        let edit: FileEdit
        do {
            edit = try FileEdit(splices)
        } catch {
            throw error.context("planned changes overlap")
        }
        let head = try source.read(at: 0, count: Int(min(source.size, Int64(MediaFormat.signatureLength))))
        return OrientationEdit(
            format: MediaFormat(signature: head), before: structure.orientation, after: target, places: planner.places,
            edit: edit)
    }
}

/// The working state of one plan: the splices so far and the places they name.
private struct Planner<Source: ByteSource> {
    let source: Source
    let structure: HEIFStructure
    let layout: HEIFLayout
    var splices: [ByteSplice] = []
    var places: [String] = []
    /// The value each transform property was given by the items planned so far.
    var decided: [Int: Int] = [:]
    var planned: Set<UInt32> = []
    /// The association count change of each `ipma` entry (box → entry → change).
    var countChange: [Int: [Int: Int]] = [:]
    /// The `irot`/`imir` boxes to append to `ipco`, in order (property index past the last).
    var newProperties: [Addition] = []

    init(source: Source, structure: HEIFStructure, layout: HEIFLayout) {
        self.source = source
        self.structure = structure
        self.layout = layout
    }

    var primary: UInt32 { structure.primaryItemID }

    func read(_ offset: Int64, _ count: Int) throws(PhotoFormatError) -> [UInt8] {
        try source.read(at: offset, count: count)
    }

    /// The first payload byte of a transform property: irot's angle, imir's axis.
    func valueByte(of property: BoxHeader) -> UInt8? {
        // Absent is fine: a property whose byte cannot be read is never taken as fixed or reused;
        // an item that names it is refused where its value is needed.
        try? read(property.payloadOffset, 1).first
    }

    // MARK: irot and imir

    typealias Slot = HEIFTransformSearch.Slot
    typealias Candidate = HEIFTransformSearch.Candidate
    typealias Addition = HEIFTransformSearch.Addition

    /// The primary item's `irot`/`imir` changed the cheapest way that shows `target`, then each
    /// follower's (thumbnails, auxiliary images) the cheapest way that shows the same change: an
    /// item that showed orientation `o` shows `o` followed by the primary's change (when the
    /// primary's transforms are not one of the eight, the target itself). Associations change
    /// per item; the counts, the new property boxes and every enclosing size are written once
    /// for all of them.
    mutating func planTransforms(target: Orientation) throws(PhotoFormatError) {
        let change = structure.orientation.map { $0.inverse.followed(by: target) }
        try planItem(primary, target: target)
        for id in followers {
            let current = structure.item(id)?.orientation
            try planItem(id, target: change.flatMap { current?.followed(by: $0) } ?? target)
        }
        try rewriteAssociationCounts()
        try resizeEnclosingBoxes()
    }

    /// The items whose `irot`/`imir` follow the primary item's, each once: its thumbnail items
    /// (`thmb`), then the auxiliary images (`auxl`: alpha, depth, gain map) of the primary and of
    /// each thumbnail. libheif decodes an alpha image with its own transforms and drops it when
    /// it does not come out the shape of its master (heif-info then says "alpha channel: no"),
    /// so an auxiliary image turns with its master.
    var followers: [UInt32] {
        var seen: Set<UInt32> = [primary]
        let thumbnails = structure.referring(to: primary, type: "thmb").filter { seen.insert($0).inserted }
        let auxiliary = ([primary] + thumbnails).flatMap { structure.referring(to: $0, type: "auxl") }
        return thumbnails + auxiliary.filter { seen.insert($0).inserted }
    }

    /// One item's `irot`/`imir` changed the cheapest way that shows `target`, given what the
    /// items planned before it decided.
    mutating func planItem(_ id: UInt32, target: Orientation) throws(PhotoFormatError) {
        let slots = try slots(of: id)
        let transforms = slots.indices.filter { [.rotation, .mirror].contains(slots[$0].kind) }
        guard transforms.count <= HEIFOrientationFix.maximumTransforms else {
            throw .unsupported("item \(id) has \(transforms.count) irot/imir properties")
        }
        let search = HEIFTransformSearch(slots: slots, transforms: transforms, fixed: fixedValues(for: id))
        guard let best = search.cheapest(reaching: target, reusable: { reusableProperty($0, $1) }) else {
            throw .unsupported("no change of item \(id)'s irot/imir gives orientation \(target.exif)")
        }
        rewriteTransformValues(best.values, of: search.properties, item: id)
        planned.insert(id)
        guard !best.dropped.isEmpty || !best.appended.isEmpty else { return }
        guard let readEntry = readEntry(of: id) else {
            throw PhotoFormatError("item \(id) has no 'ipma' entry")
        }
        try dropAssociations(best.dropped, slots: slots, item: id)
        try appendAssociations(best.appended, to: readEntry, item: id)
    }

    /// An item's associations in `ipma` order, with the value byte of each `irot`/`imir`: its
    /// first entry's, the only one libheif reads (and the reader, `HEIFParser.readProperties`).
    func slots(of id: UInt32) throws(PhotoFormatError) -> [Slot] {
        guard let (b, e) = readEntry(of: id) else { return [] }
        var slots: [Slot] = []
        let entry = layout.associationBoxes[b].entries[e]
        for (a, association) in entry.associations.enumerated() where association.propertyIndex != 0 {
            slots.append(try slot(naming: association.propertyIndex, item: id, box: b, entry: e, association: a))
        }
        return slots
    }

    /// The slot of one association: what kind of property it names and, for an `irot`/`imir`, its byte.
    func slot(naming index: Int, item id: UInt32, box: Int, entry: Int, association: Int) throws(PhotoFormatError)
        -> Slot
    {
        guard index <= layout.properties.count else {
            throw PhotoFormatError("item \(id) names property \(index) but 'ipco' has \(layout.properties.count)")
        }
        let property = layout.properties[index - 1]
        var kind = Slot.Kind.other
        var byte: UInt8 = 0
        switch property.type {
        case "irot", "imir":
            kind = property.type == "irot" ? .rotation : .mirror
            guard property.size > property.headerSize else {
                throw PhotoFormatError("'\(property.type)' box at \(property.offset) is empty")
            }
            byte = try read(property.payloadOffset, 1)[0]
        case "clap": kind = .crop
        default: break
        }
        return Slot(kind: kind, propertyIndex: index, byte: byte, box: box, entry: entry, association: association)
    }

    /// The value each property of item `id` must keep: a property shared with an item outside
    /// the primary item and its followers keeps its value (rewriting it would turn that item
    /// too), and one shared with an item planned before keeps the value that plan gave it. The
    /// rest are free: an item planned later sees what this one decided.
    func fixedValues(for id: UInt32) -> [Int: Int] {
        let family = Set([primary] + followers)
        var users: [Int: Set<UInt32>] = [:]
        for box in layout.associationBoxes {
            for entry in box.entries {
                for association in entry.associations {
                    users[association.propertyIndex, default: []].insert(entry.itemID)
                }
            }
        }
        var fixed: [Int: Int] = [:]
        for (index, items) in users where index > 0 && index <= layout.properties.count {
            if let value = decided[index] {
                fixed[index] = value
                continue
            }
            let others = items.subtracting([id])
            guard !items.isSubset(of: family) || !others.isDisjoint(with: planned) else { continue }
            // A property that cannot be read is refused when an item names it.
            if let byte = valueByte(of: layout.properties[index - 1]) {
                let mask: UInt8 = layout.properties[index - 1].type == "irot" ? 3 : 1
                fixed[index] = Int(byte & mask)
            }
        }
        return fixed
    }

    /// The value byte of each transform property whose value changes (reserved bits kept).
    mutating func rewriteTransformValues(
        _ values: [Int: Int], of properties: [HEIFTransformSearch.Property], item id: UInt32
    ) {
        for property in properties {
            let slot = property.first
            guard let value = values[slot.propertyIndex] else { continue }
            decided[slot.propertyIndex] = value
            guard value != property.start else { continue }
            let place = layout.properties[slot.propertyIndex - 1]
            let mask: UInt8 = slot.kind == .rotation ? 3 : 1
            let new = slot.byte & ~mask | UInt8(value)
            splices.append(ByteSplice(offset: place.payloadOffset, old: [slot.byte], new: [new]))
            places.append(
                slot.kind == .rotation
                    ? "irot of item \(id): \(slot.value) -> \(value)"
                    : "imir of item \(id): axis \(slot.value) -> \(value)")
        }
    }

    /// Removes the associations at these slot positions, counting the change of each entry.
    mutating func dropAssociations(_ positions: Set<Int>, slots: [Slot], item id: UInt32) throws(PhotoFormatError) {
        for position in positions.sorted() {
            let slot = slots[position]
            let box = layout.associationBoxes[slot.box]
            let association = box.entries[slot.entry].associations[slot.association]
            splices.append(
                ByteSplice(offset: association.offset, old: try read(association.offset, box.indexWidth), new: []))
            countChange[slot.box, default: [:]][slot.entry, default: 0] -= 1
            places.append("imir (axis \(slot.value)) of item \(id) no longer associated")
        }
    }

    /// Appends essential associations to the entry (box, entry), each to an identical property
    /// already in `ipco` (or planned for it by an item before) or else to a new one, kept for
    /// the end of `ipco`.
    mutating func appendAssociations(_ additions: [Addition], to readEntry: (Int, Int), item id: UInt32)
        throws(PhotoFormatError)
    {
        let (b, e) = readEntry
        let box = layout.associationBoxes[b]
        var added: [UInt8] = []
        for addition in additions {
            let name = addition.kind == .rotation ? "irot" : "imir"
            let index: Int
            if let existing = reusableProperty(addition.kind, addition.value) {
                index = existing
                // An item planned later must not rewrite what this one now relies on.
                if existing <= layout.properties.count { decided[existing] = addition.value }
                places.append("\(name) \(addition.value) (property \(index)) newly associated with item \(id)")
            } else {
                index = layout.properties.count + newProperties.count + 1
                newProperties.append((addition.kind, addition.value))
                places.append("new \(name) \(addition.value) (property \(index)) for item \(id)")
            }
            guard index <= box.maximumIndex else {
                throw .unsupported(
                    "property index \(index) does not fit the \(box.indexWidth)-byte fields of 'ipma'")
            }
            let essential = box.indexWidth == 2 ? 0x8000 : 0x80
            added += bigEndian(UInt64(essential | index), width: box.indexWidth)
        }
        if !added.isEmpty { splices.append(ByteSplice(offset: box.entries[e].end, old: [], new: added)) }
        countChange[b, default: [:]][e, default: 0] += additions.count
    }

    /// The association count of each entry that changes.
    mutating func rewriteAssociationCounts() throws(PhotoFormatError) {
        for (b, changes) in countChange {
            for (e, change) in changes where change != 0 {
                let entry = layout.associationBoxes[b].entries[e]
                let count = entry.associations.count + change
                guard count <= 255 else {
                    throw .unsupported("item \(entry.itemID) would have \(count) properties, more than 255")
                }
                splices.append(
                    ByteSplice(offset: entry.countOffset, old: [UInt8(entry.associations.count)], new: [UInt8(count)]))
            }
        }
    }

    /// Inserts the new property boxes at the end of `ipco`, and resizes every box that holds a
    /// change: `ipco`, each `ipma`, `iprp` and `meta`, once for every item's changes.
    mutating func resizeEnclosingBoxes() throws(PhotoFormatError) {
        let boxes: [UInt8] = newProperties.flatMap { addition -> [UInt8] in
            [0, 0, 0, 9] + Array((addition.kind == .rotation ? "irot" : "imir").utf8) + [UInt8(addition.value)]
        }
        if !boxes.isEmpty {
            splices.append(ByteSplice(offset: layout.ipco.end, old: [], new: boxes))
            try resize(layout.ipco, by: Int64(boxes.count))
        }
        var ipmaGrowth: Int64 = 0
        for (b, changes) in countChange {
            let growth = Int64(changes.values.reduce(0, +) * layout.associationBoxes[b].indexWidth)
            ipmaGrowth += growth
            try resize(layout.associationBoxes[b].box, by: growth)
        }
        try resize(layout.iprp, by: Int64(boxes.count) + ipmaGrowth)
        try resize(layout.meta, by: Int64(boxes.count) + ipmaGrowth)
    }

    /// The `ipma` entry (box, entry) of an item where its associations are read and new ones go:
    /// its first, the only one libheif reads (a later entry for the same item is passed over).
    func readEntry(of id: UInt32) -> (Int, Int)? {
        for (b, box) in layout.associationBoxes.enumerated() {
            if let e = box.entries.firstIndex(where: { $0.itemID == id }) { return (b, e) }
        }
        return nil
    }

    /// The first property of `ipco` that is exactly the 9-byte box this planner would write, or
    /// one an item before this one planned to append.
    func reusableProperty(_ kind: Slot.Kind, _ value: Int) -> Int? {
        let type: FourCC = kind == .rotation ? "irot" : "imir"
        for (position, property) in layout.properties.enumerated()
        where property.type == type && property.size == 9 && property.headerSize == 8 {
            // A property an item before planned for keeps the value that plan gave it.
            if let planned = decided[position + 1] {
                if planned == value { return position + 1 }
                continue
            }
            // A property that cannot be read is not reused; a new one is written.
            if valueByte(of: property) == UInt8(value) {
                return position + 1
            }
        }
        return newProperties.firstIndex { $0.kind == kind && $0.value == value }.map {
            layout.properties.count + $0 + 1
        }
    }

    /// A box's size field grown by `change` bytes.
    mutating func resize(_ box: BoxHeader, by change: Int64) throws(PhotoFormatError) {
        guard change != 0, box.sizeFieldWidth != 0 else { return }
        let size = box.size + change
        guard box.sizeFieldWidth == 8 || size <= Int64(UInt32.max) else {
            throw .unsupported("'\(box.type)' box would be \(size) bytes, more than its 32-bit size holds")
        }
        splices.append(
            ByteSplice(
                offset: box.sizeFieldOffset, old: try read(box.sizeFieldOffset, box.sizeFieldWidth),
                new: bigEndian(UInt64(size), width: box.sizeFieldWidth)))
    }

    // MARK: iloc

    /// Merges an insertion with a splice at the same offset (an `ipco` that ends where `ipma`'s
    /// size is), then shifts every `iloc` offset into this file past a size change.
    mutating func finish() throws(PhotoFormatError) -> [ByteSplice] {
        var merged: [ByteSplice] = []
        for splice in splices.sorted(by: { ($0.offset, $0.old.isEmpty ? 0 : 1) < ($1.offset, $1.old.isEmpty ? 0 : 1) })
        {
            if let last = merged.last, last.old.isEmpty, last.offset == splice.offset {
                merged[merged.count - 1] = ByteSplice(
                    offset: splice.offset, old: splice.old, new: last.new + splice.new)
            } else {
                merged.append(splice)
            }
        }
        let resizing = merged.filter { $0.old.count != $0.new.count }
        guard !resizing.isEmpty else { return merged }
        func shift(at position: Int64) -> Int64 {
            resizing.filter { $0.offset + Int64($0.old.count) <= position }.reduce(0) {
                $0 + Int64($1.new.count - $1.old.count)
            }
        }
        var shifted = 0
        var shiftedBy = Set<Int64>()
        for location in layout.locations where location.constructionMethod == 0 && location.dataReferenceIndex == 0 {
            let base = Int64(bitPattern: location.baseOffset?.value ?? 0)
            var shifts: [Int64] = []
            for extent in location.extents {
                let start = base &+ Int64(bitPattern: extent.offset?.value ?? 0)
                let end = extent.length == 0 ? structure.fileSize : start &+ Int64(bitPattern: extent.length)
                if let inside = resizing.first(where: { $0.offset > start && $0.offset < end }) {
                    throw PhotoFormatError(
                        "a change at \(inside.offset) would fall inside item \(location.itemID)'s data")
                }
                shifts.append(shift(at: start))
            }
            guard shifts.contains(where: { $0 != 0 }) else { continue }
            func moved(_ field: HEIFLayout.Field, by delta: Int64) throws(PhotoFormatError) -> ByteSplice {
                let value = Int64(bitPattern: field.value) + delta
                let limit: Int64 = field.width == 4 ? Int64(UInt32.max) : Int64.max
                guard value >= 0, value <= limit else {
                    throw .unsupported(
                        "item \(location.itemID)'s offset \(field.value) moved by \(delta) does not fit its \(field.width)-byte field"
                    )
                }
                return ByteSplice(
                    offset: field.offset, old: bigEndian(field.value, width: field.width),
                    new: bigEndian(UInt64(value), width: field.width))
            }
            if let baseField = location.baseOffset,
                baseField.value != 0 || location.extents.contains(where: { $0.offset == nil }),
                Set(shifts).count == 1
            {
                merged.append(try moved(baseField, by: shifts[0]))
            } else {
                for (extent, delta) in zip(location.extents, shifts) where delta != 0 {
                    guard let field = extent.offset else {
                        throw .unsupported(
                            "item \(location.itemID)'s data would move but its 'iloc' entry has no offset to change")
                    }
                    merged.append(try moved(field, by: delta))
                }
            }
            shifted += 1
            shiftedBy.formUnion(shifts.filter { $0 != 0 })
        }
        if shifted > 0 {
            let by = shiftedBy.sorted().map { $0 > 0 ? "+\($0)" : "\($0)" }.joined(separator: ", ")
            places.append("iloc offsets of \(shifted) item\(shifted == 1 ? "" : "s") shifted by \(by)")
        }
        return merged
    }

    // MARK: Exif and XMP

    /// The file offset of byte `index` of an item's data; nil when the data is not in this file.
    func fileOffset(of index: Int, in id: UInt32) -> Int64? {
        guard let item = structure.item(id), item.constructionMethod != 2 else { return nil }
        var skipped: Int64 = 0
        for extent in item.extents {
            // Saturating: a cut file's extent keeps the length `iloc` claims, up to 2⁶³ − 1.
            let (end, overflow) = skipped.addingReportingOverflow(extent.length)
            if overflow || Int64(index) < end {
                let (at, outside) = extent.offset.addingReportingOverflow(Int64(index) - skipped)
                return outside ? nil : at
            }
            skipped = end
        }
        return nil
    }

    /// Splices that write `new` over `old` at `index` of an item's data, byte by byte through its extents.
    func overwrite(_ old: [UInt8], with new: [UInt8], at index: Int, in id: UInt32) throws(PhotoFormatError)
        -> [ByteSplice]
    {
        var result: [ByteSplice] = []
        for position in old.indices where old[position] != new[position] {
            guard let offset = fileOffset(of: index + position, in: id) else {
                throw .unsupported("item \(id)'s data is not in this file")
            }
            result.append(ByteSplice(offset: offset, old: [old[position]], new: [new[position]]))
        }
        return result
    }

    /// IFD0 Orientation of the Exif item, set to the target where it exists. An Exif item that
    /// cannot be read is left alone: the reader reports it, and irot/imir decide anyway.
    mutating func planEXIF(target: Orientation) throws(PhotoFormatError) {
        // Absent is fine: in HEIF the EXIF inside is informative only (irot/imir decide); an unreadable block is left as it is.
        guard let id = structure.describing(type: "Exif"), let found = try? exifOrientation(item: id) else { return }
        let (tiff, entry, current) = (found.tiff, found.entry, found.value)
        guard current != target.exif else { return }
        let start = found.tiffStart + entry.valueOffset
        let width = entry.type.size
        let old = Array(tiff.bytes[entry.valueOffset..<entry.valueOffset + width])
        var new = bigEndian(UInt64(target.exif), width: width)
        if tiff.littleEndian { new.reverse() }
        splices += try overwrite(old, with: new, at: start, in: id)
        places.append("Exif item \(id) IFD0 Orientation: \(current) -> \(target.exif)")
    }

    /// The Exif item's TIFF, where it starts in the item, and IFD0's Orientation as a SHORT or a
    /// LONG; nil when there is none.
    func exifOrientation(
        item id: UInt32
    ) throws -> (tiffStart: Int, tiff: TIFFStructure, entry: TIFFEntry, value: Int)? {
        let data = try structure.data(of: id, in: source)
        guard let exif = try structure.exifTIFF(in: source) else { return nil }
        let (tiff, ifd0) = try TIFFStructure.firstDirectory(of: exif.bytes)
        guard let entry = ifd0[TIFFTag.orientation], entry.count >= 1, entry.type == .short || entry.type == .long,
            let value = tiff.integer(entry)
        else { return nil }
        return (data.count - exif.bytes.count, tiff, entry, value)
    }

    /// Every `tiff:Orientation` of the XMP item, rewritten in its own digits where it exists
    /// (zero-padded to the same length: `06` becomes `01`).
    mutating func planXMP(target: Orientation) throws(PhotoFormatError) {
        // Absent is fine: the XMP inside a HEIF is informative only; an unreadable packet is left as it is.
        guard let id = structure.describing(type: "mime", contentType: "application/rdf+xml"),
            let packet = try? structure.data(of: id, in: source)
        else { return }
        for (value, digits) in XMPOrientation.valueLocations(in: packet) where value != target.exif {
            let text = String(target.exif)
            let padded = String(repeating: "0", count: max(0, digits.count - text.count)) + text
            splices += try overwrite(Array(packet[digits]), with: Array(padded.utf8), at: digits.lowerBound, in: id)
            places.append("XMP item \(id) tiff:Orientation: \(value) -> \(target.exif)")
        }
    }
}

/// `value` as `width` big-endian bytes.
private func bigEndian(_ value: UInt64, width: Int) -> [UInt8] {
    (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(width - 1 - $0))) }
}
