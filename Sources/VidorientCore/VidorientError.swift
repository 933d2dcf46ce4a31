/// Why a file could not be read, planned, written or checked: the one error every layer throws
/// about a file. Its `kind` says what sort of failure it is, and it survives every re-wrapping:
/// a layer that adds its own words (`context`) or names the file (`at(path:)`) keeps the kind,
/// so a fix refused for an unsupported file is counted as refused however deep the refusal was.
///
/// The layers kept their own names for it (`ISOBMFFError` in the box layer, `PhotoFormatError`
/// in the photo readers, `InputError` where a file is named): they are this type.
/// A value a person typed that is out of range is a `ValueError` instead (exit status 64).
public struct VidorientError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        /// The operating system refused: a missing file, no permission, a disk full, not a regular
        /// file, a file that changed while it was being worked on.
        case io
        /// The bytes contradict their format (or each other): a damaged or truncated file.
        case malformed
        /// A well-formed file that this code will not read or change, such as a fragmented MP4
        /// for `fix`, or an orientation stored as a type other than SHORT: a refusal.
        case unsupported
    }

    public var kind: Kind
    /// A few lowercase words, no path: `fragmented mp4 (moof) is not supported`.
    public var reason: String
    /// The file, when a layer that knows it has named it (`at(path:)`).
    public var path: String?
    /// What could not be done to `path`, for the message: `read` (the default), `write`, `fix`…
    public var action = "read"
    /// The `errno` behind an `.io` error (ENOENT, EACCES, …); 0 when there is none.
    public var code: Int32
    /// What a caller decides on, typed (not read from the reason's words); nil for any other failure.
    public var condition: Condition?

    /// The failures callers treat apart from the rest.
    public enum Condition: String, Sendable, Hashable {
        /// The read gave up at its time limit (`audit --timeout`): said as a `timeout` finding,
        /// and not cached, since it says more about the machine's load than about the file.
        case timedOut
        /// The file ends before its structure does (a movie cut before its `moov`).
        case cutShort
    }

    public init(_ kind: Kind, _ reason: String, code: Int32 = 0) {
        self.kind = kind
        self.reason = reason
        self.code = code
    }

    /// A format error (what the photo readers throw as `PhotoFormatError("…")`).
    public init(_ reason: String) { self.init(.malformed, reason) }

    /// An error about the file at `path` (what `InputError(path:reason:)` makes).
    public init(path: String, reason: String, kind: Kind = .malformed, code: Int32 = 0) {
        self.init(kind, reason, code: code)
        self.path = path
    }

    public static func malformed(_ reason: String) -> VidorientError { VidorientError(.malformed, reason) }
    public static func unsupported(_ reason: String) -> VidorientError { VidorientError(.unsupported, reason) }
    public static func io(_ reason: String, code: Int32 = 0) -> VidorientError {
        VidorientError(.io, reason, code: code)
    }

    /// A read of `path` that gave up after `seconds`.
    public static func timedOut(path: String, after seconds: Double) -> VidorientError {
        var error = VidorientError(path: path, reason: "timed out after \(seconds) s", kind: .io)
        error.condition = .timedOut
        return error
    }

    /// A file whose bytes end before its structure does: `.malformed`, the reason saying where.
    public static func cutShort(_ reason: String) -> VidorientError {
        var error = VidorientError.malformed(reason)
        error.condition = .cutShort
        return error
    }

    /// The same error with `prefix` before its reason (`prefix: reason`): the kind, code and
    /// path are kept.
    public func context(_ prefix: String) -> VidorientError {
        var wrapped = self
        wrapped.reason = prefix + ": " + reason
        return wrapped
    }

    /// The same error, about the file at `path`, which could not be read (or have `action` done).
    public func at(path: String, action: String = "read") -> VidorientError {
        var named = self
        named.path = path
        named.action = action
        return named
    }

    /// `could not ACTION 'PATH': REASON` once the file is named, the reason alone before.
    public var description: String { path.map { "could not \(action) '\($0)': \(reason)" } ?? reason }
}

/// The name of the one error where a layer reports a file by its path.
public typealias InputError = VidorientError

extension DecodingError {
    /// What a JSON decoder found wrong, in one lowercase line naming the key:
    /// `key 'findings' is missing`, `'path' is not a string`, `not valid json`.
    /// What a JSON value of `type` is, in words: `an integer`, not Swift's `a int` (issue 23).
    static func kind(of type: Any.Type) -> String {
        let name = String(describing: type)
        if name.hasPrefix("Int") || name.hasPrefix("UInt") { return "an integer" }
        if name == "Double" || name == "Float" { return "a number" }
        if name == "Bool" { return "true or false" }
        if name == "String" { return "a string" }
        if name.hasPrefix("Array") { return "a list" }
        if name.hasPrefix("Dictionary") { return "an object" }
        return "a " + name.lowercased()
    }

    public var summary: String {
        func place(_ context: Context) -> String {
            let path = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
            return path.isEmpty ? "the line" : "'" + path.joined(separator: ".") + "'"
        }
        switch self {
        case .keyNotFound(let key, let context):
            let parent = context.codingPath.isEmpty ? "" : " in \(place(context))"
            return "key '\(key.stringValue)' is missing\(parent)"
        case .typeMismatch(let type, let context):
            return "\(place(context)) is not \(DecodingError.kind(of: type))"
        case .valueNotFound(let type, let context):
            return "\(place(context)) is null, not \(DecodingError.kind(of: type))"
        case .dataCorrupted(let context):
            let said = context.debugDescription.lowercased()
            let what = said.contains("valid json") || said.contains("not valid") ? "not valid json" : said
            return context.codingPath.isEmpty ? what : "\(place(context)): \(what)"
        @unknown default: return "\(self)"
        }
    }
}
