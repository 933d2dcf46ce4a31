public import Foundation

/// Real photographs for the content verdict's tests: scikit-image's sample images, as Debian's
/// python3-skimage package ships them (public domain or CC0, per scikit-image's docstrings).
/// `.ci/setup` extracts the package's data folder into `.build-models/skimage-data` (none of its
/// Python is needed); an installed python3-skimage serves as well. Nothing is copied into the
/// repository; tests that need them skip cleanly when they are absent.
public enum ContentPhotos {
    /// `$VIDORIENT_CONTENT_PHOTOS`, the extracted package, or the installed one, first found.
    public static let folder: URL? = {
        var candidates = [
            PackageFolder.root.appendingPathComponent(".build-models/skimage-data"),
            URL(fileURLWithPath: "/usr/lib/python3/dist-packages/skimage/data"),
        ]
        if let override = ProcessInfo.processInfo.environment["VIDORIENT_CONTENT_PHOTOS"] {
            candidates.insert(URL(fileURLWithPath: override), at: 0)
        }
        return candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("rocket.jpg").path) }
    }()

    public static var isPresent: Bool { folder != nil }

    /// The photo's path (the caller has checked `isPresent`).
    public static func path(_ name: String) -> String { folder!.appendingPathComponent(name).path }

    /// Upright photos with a clear up, by what shows it. (The grey cameraman's face, turned down
    /// and partly hidden, is below dlib's threshold: not used.)
    public static let face = "astronaut.png"  // NASA portrait of Eileen Collins
    public static let scenes = ["rocket.jpg", "motorcycle_left.png", "chelsea.png", "coffee.png"]
    /// Pictures with no up: textures.
    public static let textures = ["gravel.png", "grass.png", "brick.png"]
}
