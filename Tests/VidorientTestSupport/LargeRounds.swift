import Foundation

/// The larger rounds. The README's test run takes a share of the costliest rounds so that it stays
/// within four minutes on two cores; `.ci/run` then runs those tests again with
/// `VIDORIENT_LARGE_ROUNDS=1`, whole, and prints their counts.
public enum LargeRounds {
    public static let enabled = ProcessInfo.processInfo.environment["VIDORIENT_LARGE_ROUNDS"] == "1"

    /// The target orientations a round over 12-megapixel phone files tries: all eight in a large
    /// round, else four that hold a mirror, a half turn, a quarter turn, and a mirror with a quarter
    /// turn (an `imir` and an `irot` together).
    public static let phoneTargets: [Int] = enabled ? Array(1...8) : [2, 3, 6, 7]

    /// One photo mutant in this many (`MutatedPhotoTests`): every one in a large round, else a third.
    public static let mutationShare = enabled ? 1 : 3
}
