import Foundation

/// The larger rounds. The README's test run takes a share of the costliest rounds so that it stays
/// within four minutes on two cores; `.ci/run` then runs those tests again with
/// `VIDORIENT_LARGE_ROUNDS=1`, whole, and prints their counts.
public enum LargeRounds {
    public static let enabled = ProcessInfo.processInfo.environment["VIDORIENT_LARGE_ROUNDS"] == "1"

    /// The target orientations a round over 12-megapixel phone files tries: all eight in a large
    /// round, else a half turn and a mirror with a quarter turn (an `irot`, then an `imir` and an
    /// `irot` together).
    public static let phoneTargets: [Int] = enabled ? Array(1...8) : [7]

    /// The target orientations a round over TestMedia's small HEIF files tries: all eight in a
    /// large round, else a quarter turn and a mirror with a quarter turn (an `irot`, and an `imir`
    /// with an `irot`).
    public static let targets: [Int] = enabled ? Array(1...8) : [6, 7]

    /// The orientations a round over every orientation but the upright one takes: all seven (2–8)
    /// in a large round, else a mirror, a quarter turn and a mirror with a quarter turn.
    public static let turns: [Int] = enabled ? Array(2...8) : [2, 6, 7]

    /// The target orientations a tag-fix round takes: all eight in a large round, else the upright
    /// one (a tag set to 1), a quarter turn and a mirror with a quarter turn.
    public static let tagTargets: [Int] = enabled ? Array(1...8) : [1, 6, 7]

    /// Files `audit --watch` takes in at once (`WatchLoadTests`; `VIDORIENT_WATCH_LOAD` overrides).
    public static let watchLoad =
        ProcessInfo.processInfo.environment["VIDORIENT_WATCH_LOAD"].flatMap(Int.init) ?? (enabled ? 5_000 : 2_000)

    /// One photo mutant in this many (`MutatedPhotoTests`): every one in a large round, else a fifth.
    public static let mutationShare = enabled ? 1 : 5
}
