extension FormatReport {
    /// The device, lens and date a video was taken with, from the tags phones write (Apple's
    /// QuickTime keys, Android's, then the plain ones), as `inspect` labels them: `device`, `lens`,
    /// `taken`; only those present, in that order.
    public var captureFacts: [(label: String, value: String)] {
        let make = tags["com.apple.quicktime.make"] ?? tags["com.android.manufacturer"] ?? tags["make"]
        let model = tags["com.apple.quicktime.model"] ?? tags["com.android.model"] ?? tags["model"]
        let device = [make, model].compactMap { $0 }.joined(separator: " ")
        var facts: [(label: String, value: String)] = device.isEmpty ? [] : [("device", device)]
        if let lens = tags["com.apple.quicktime.camera.lens_model"] { facts.append(("lens", lens)) }
        if let date = tags["com.apple.quicktime.creationdate"] ?? tags["creation_time"] {
            facts.append(("taken", date))
        }
        return facts
    }
}
