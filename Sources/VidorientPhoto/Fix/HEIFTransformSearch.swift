import VidorientCore

/// The pure part of the HEIF orientation fix: every way to reach a target orientation from an
/// item's `irot`/`imir` associations (new values, mirrors dropped, transforms appended),
/// weighed, the cheapest first. It reads no bytes: `HEIFOrientationFix` gives it the associations
/// (`Slot`s) it found and writes the `Candidate` it returns. The values each transform property
/// may take, the mirrors that may be dropped, and what may be appended are weighed together.
struct HEIFTransformSearch {
    /// One of the item's associations, in `ipma` order.
    struct Slot {
        enum Kind: Equatable { case rotation, mirror, crop, other }
        var kind: Kind
        var propertyIndex: Int
        /// The whole value byte of an irot/imir (reserved bits included).
        var byte: UInt8
        var box: Int
        var entry: Int
        var association: Int
        var value: Int { kind == .rotation ? Int(byte & 3) : Int(byte & 1) }
    }

    /// One way to reach the target.
    struct Candidate {
        var values: [Int: Int]  // property index → new value
        var dropped: Set<Int>  // slot positions
        var appended: [Addition]
        var cost: [Int]
    }

    /// An `irot` or `imir` association to append, with its value.
    typealias Addition = (kind: Slot.Kind, value: Int)

    let slots: [Slot]
    /// Positions in `slots` of the `irot`/`imir` associations.
    let transforms: [Int]
    /// Position in `slots` of the last `clap`; -1 when there is none.
    let lastCrop: Int
    /// Each distinct transform property, in order, with the values it may take.
    let properties: [Property]

    /// One transform property of the item: its first slot, the value it has before this item's
    /// plan (its byte's, or what an item planned before gave it), and the values it may take.
    struct Property {
        var first: Slot
        var start: Int
        var choices: [Int]
    }

    /// `fixed` holds the value each property must keep (shared with another item); a property
    /// applied before a crop keeps its value too.
    init(slots: [Slot], transforms: [Int], fixed: [Int: Int]) {
        self.slots = slots
        self.transforms = transforms
        let lastCrop = slots.lastIndex { $0.kind == .crop } ?? -1
        self.lastCrop = lastCrop
        var properties: [Property] = []
        for position in transforms {
            let slot = slots[position]
            guard !properties.contains(where: { $0.first.propertyIndex == slot.propertyIndex }) else { continue }
            let start = fixed[slot.propertyIndex] ?? slot.value
            let pinned =
                fixed[slot.propertyIndex] != nil
                || slots.indices.contains { slots[$0].propertyIndex == slot.propertyIndex && $0 < lastCrop }
            properties.append(
                Property(
                    first: slot, start: start,
                    choices: pinned ? [start] : slot.kind == .rotation ? [0, 1, 2, 3] : [0, 1]
                ))
        }
        self.properties = properties
    }

    /// What may be appended after the item's other properties: nothing, an `irot`, an `imir`,
    /// or an `irot` then an `imir`.
    static var appendOptions: [[Addition]] {
        [[]] + (1...3).map { [(.rotation, $0)] } + (0...1).map { [(.mirror, $0)] }
            + (1...3).flatMap { r in (0...1).map { [(.rotation, r), (.mirror, $0)] } }
    }

    /// The cheapest candidate that shows `target` (the first of equal cost); nil when none does.
    func cheapest(reaching target: Orientation, reusable: (Slot.Kind, Int) -> Int?) -> Candidate? {
        var best: Candidate?
        let droppable = droppableSets()
        let appendOptions = Self.appendOptions
        for values in valueAssignments() {
            for dropped in droppable {
                for appended in appendOptions {
                    guard
                        let candidate = candidate(
                            values: values, dropped: dropped, appended: appended, target: target,
                            reusable: reusable)
                    else { continue }
                    if let best, !candidate.cost.lexicographicallyPrecedes(best.cost) { continue }
                    best = candidate
                }
            }
        }
        return best
    }

    /// Every assignment of allowed values to the transform properties, by property index.
    func valueAssignments() -> [[Int: Int]] {
        var assignments: [[Int: Int]] = [[:]]
        for property in properties {
            let index = property.first.propertyIndex
            assignments = assignments.flatMap { partial in
                property.choices.map { partial.merging([index: $0]) { $1 } }
            }
        }
        return assignments
    }

    /// The sets of transform positions that may be dropped.
    func droppableSets() -> [Set<Int>] {
        (0..<(1 << transforms.count)).compactMap { mask in
            let dropped = Set(transforms.indices.filter { mask & (1 << $0) != 0 }.map { transforms[$0] })
            // Dropping a transform before a crop would move the crop.
            if dropped.contains(where: { $0 < lastCrop }) { return nil }
            // Only mirrors are dropped: an irot is set to 0 instead.
            if dropped.contains(where: { slots[$0].kind == .rotation }) { return nil }
            return dropped
        }
    }

    /// One choice of values, drops and additions, with its cost; nil when it does not show
    /// `target` or is not worth weighing.
    func candidate(
        values: [Int: Int], dropped: Set<Int>, appended: [Addition], target: Orientation,
        reusable: (Slot.Kind, Int) -> Int?
    ) -> Candidate? {
        guard let sequence = transformSequence(values: values, dropped: dropped, appended: appended),
            Orientation(heifTransforms: sequence) == target
        else { return nil }
        let kept = Set(transforms.filter { !dropped.contains($0) }.map { slots[$0].propertyIndex })
        let changed = properties.filter { values[$0.first.propertyIndex] != $0.start }
        // A dropped property keeps its bytes: one choice of its values is enough.
        if changed.contains(where: { !kept.contains($0.first.propertyIndex) }) { return nil }
        let newBoxes = appended.filter { reusable($0.kind, $0.value) == nil }.count
        let cost = [dropped.count + appended.count, appended.count, changed.count, newBoxes]
        return Candidate(values: values, dropped: dropped, appended: appended, cost: cost)
    }

    /// The transforms the item would have, in `ipma` order; nil when that would put a mirror
    /// beside another.
    func transformSequence(values: [Int: Int], dropped: Set<Int>, appended: [Addition]) -> [HEIFItemTransform]? {
        var sequence: [HEIFItemTransform] = []
        var mirrors = 0
        for position in transforms where !dropped.contains(position) {
            let slot = slots[position]
            guard let value = values[slot.propertyIndex] else { return nil }
            if slot.kind == .rotation {
                sequence.append(.rotation(anticlockwiseQuarterTurns: value))
            } else {
                sequence.append(.mirror(axis: value))
                mirrors += 1
            }
        }
        if mirrors > 0, appended.contains(where: { $0.kind == .mirror }) { return nil }
        for added in appended {
            sequence.append(
                added.kind == .rotation
                    ? .rotation(anticlockwiseQuarterTurns: added.value) : .mirror(axis: added.value))
        }
        return sequence
    }
}
