import Synchronization
import VidorientCore

/// A progress bar for long batch work, redrawn in place on stderr: `[#####.....] 12/40 name`.
/// Shown only when stderr is a terminal, `TERM` is not `dumb`, `NO_COLOR` is unset and the
/// user did not ask for quiet; otherwise every call is a no-op, so piped output and logs stay clean.
/// Safe to call from the worker threads of a parallel batch.
final class ProgressBar: Sendable {
    private struct State {
        var done = 0
        var shown = false
        var lastDraw = 0.0
    }

    let total: Int
    let enabled: Bool
    private let state = Mutex(State())

    init(total: Int, quiet: Bool) {
        self.total = total
        enabled = !quiet && total > 0 && ProgressBar.allowed
    }

    /// Whether stderr may carry a progress display at all.
    static var allowed: Bool {
        let term = getenv("TERM").map { String(cString: $0) }
        // no-color.org: NO_COLOR counts when it is set and not empty.
        let noColor = getenv("NO_COLOR").map { $0.pointee != 0 } ?? false
        return isatty(STDERR_FILENO) == 1 && term != nil && term != "dumb" && !noColor
    }

    /// One more item finished; `label` (a file name) is shown beside the count.
    func advance(_ label: String) {
        guard enabled else { return }
        state.withLock { state in
            state.done += 1
            let now = ProgressBar.now()
            // At most ten redraws a second, and always the last one.
            guard now - state.lastDraw >= 0.1 || state.done == total else { return }
            state.lastDraw = now
            draw(done: state.done, label: label)
            state.shown = true
        }
    }

    /// A diagnostic line printed above the bar, which is redrawn below it.
    func warn(_ line: String) {
        state.withLock { state in
            if state.shown { emit("\r\u{1B}[2K") }
            Terminal.warn(line)
            if state.shown { draw(done: state.done, label: "") }
        }
    }

    /// Removes the bar, before the results are printed.
    func finish() {
        state.withLock { state in
            if state.shown { emit("\r\u{1B}[2K") }
            state.shown = false
        }
    }

    private func draw(done: Int, label: String) {
        let cells = 24
        let filled = total == 0 ? cells : done * cells / total
        // A file name may hold control characters or bytes that are not UTF-8: shown escaped.
        let name = (label.split(separator: "/").last.map(String.init) ?? label).escapingControlCharacters
        let shownName = name.count > 40 ? String(name.prefix(39)) + "…" : name
        emit(
            "\r\u{1B}[2K[" + String(repeating: "#", count: filled) + String(repeating: ".", count: cells - filled)
                + "] \(done)/\(total) \(shownName)")
    }

    private func emit(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBufferPointer { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
