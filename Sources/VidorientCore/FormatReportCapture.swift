extension FormatReport {
    /// The maker, from the tags phones write (Apple's QuickTime keys, Android's, then the plain one).
    public var make: String? { tags["com.apple.quicktime.make"] ?? tags["com.android.manufacturer"] ?? tags["make"] }

    /// The model, from the same tags as `make`.
    public var model: String? { tags["com.apple.quicktime.model"] ?? tags["com.android.model"] ?? tags["model"] }

    /// When it was taken: Apple's creation date (with the local offset), else `creation_time`.
    public var captureDate: String? { tags["com.apple.quicktime.creationdate"] ?? tags["creation_time"] }

    /// The device, lens and date a video was taken with, as `inspect` labels them: `device`,
    /// `lens`, `taken`; only those present, in that order.
    public var captureFacts: [(label: String, value: String)] {
        let device = [make, model].compactMap { $0 }.joined(separator: " ")
        var facts: [(label: String, value: String)] = device.isEmpty ? [] : [("device", device)]
        if let lens = tags["com.apple.quicktime.camera.lens_model"] { facts.append(("lens", lens)) }
        if let date = captureDate { facts.append(("taken", date)) }
        return facts
    }
}
