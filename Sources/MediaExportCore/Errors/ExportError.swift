import Foundation

/// The stage of an export where something went wrong, named in every failure.
public enum ExportStage: String, Codable, Sendable, CaseIterable {
    case usage, preset, edit, open, probe, decode, filter, encode, mux, write
}

/// Every failure the library reports: each case says which file and why, so a caller can act on it.
public enum ExportError: Error, Equatable, Sendable {
    /// The input path does not exist or cannot be read.
    case inputUnreadable(path: String, reason: String)
    /// The input exists but is not media FFmpeg can open (empty, text, truncated, corrupt).
    case notMedia(path: String, reason: String)
    /// The input has no stream the preset can deliver (e.g. a video preset on a file without video or audio).
    case noUsableStreams(path: String, reason: String)
    /// The requested time range is empty or lies outside the media.
    case invalidTimeRange(path: String, reason: String)
    /// No preset of that name exists, built in or as a file.
    case presetNotFound(name: String, known: [String])
    /// A preset file is not valid; `field` is the JSON key at fault.
    case invalidPreset(path: String, field: String, reason: String)
    /// An edit sidecar is not valid; `field` is the JSON key at fault.
    case invalidSidecar(path: String, field: String, reason: String)
    /// The asked-for version cannot be delivered: `--require-current` with only an `.AAE` whose edits cannot
    /// be rendered here, or `original` when only a rendered edit exists.
    case versionUnavailable(path: String, version: AssetVersion, reason: String)
    /// An edit that only a transcode can apply was asked of `passthrough`.
    case editNeedsTranscode(path: String, edits: [String])
    /// The output exists and `overwrite` was not given.
    case outputExists(path: String)
    /// A file is at the output path that the export may not replace: not one of the request's `replaceable` (a
    /// batch's own earlier output), or changed while it was being replaced. It was left as it was.
    case outputNotOwned(path: String)
    /// The output would replace the input (same path, symlink or hard link).
    case outputIsInput(path: String)
    /// The output resolves outside the sandbox directory.
    case outputOutsideSandbox(path: String, sandbox: String)
    /// The output cannot be written: missing or unwritable directory, unknown container, write error.
    case outputUnwritable(path: String, reason: String)
    /// FFmpeg failed at a stage of the pipeline; `message` is FFmpeg's own text.
    case ffmpeg(stage: ExportStage, path: String, code: Int32, message: String)
    /// Decoding met more corrupt packets or frames than allowed (`threshold`; 0 under `strict`).
    case tooManyDecodeErrors(path: String, count: Int, threshold: Int)
    /// The input's data holds well less than the length its header declares: a file cut short, or one with a stretch
    /// that could not be read (`reason` says which, and where: `DataShortfall`).
    case truncated(path: String, reason: String)
    /// The export made no progress for `seconds` (the stall watchdog stopped it).
    case stalled(path: String, seconds: Double)
    /// The input changed, shrank or disappeared while it was being read.
    case inputChanged(path: String, reason: String)
    /// A byte copy did not match its source (SHA-256 differs).
    case copyMismatch(path: String, expected: String, actual: String)
    /// The finished output did not match its plan (a stream missing, too short, wrong size …); `checks` names
    /// the failed checks. The output was never committed; the fallback chain moves on to the next route.
    case verificationFailed(path: String, checks: String)
    /// The finished output did not match its plan although the input decoded cleanly (nothing corrupt, nothing cut
    /// short): the plan promised what the container or the route does not give — an internal plan mismatch, a bug of
    /// mediaexport's, never the input's. `checks` names what was expected and what was measured. The chain still
    /// falls back so that something is delivered, and says why (`ExportEvent.Fallback.planMismatch`).
    case planMismatch(path: String, checks: String)
    /// The output cannot be made to fit the size limit (`--max-size`, `maxFileSize`): `reason` says why (too little
    /// room for the duration, or still over after the retry). Nothing was written.
    case sizeLimitExceeded(path: String, limit: Int64, reason: String)
    /// The export was cancelled (API call or signal); nothing was left behind.
    case cancelled
    /// The request itself is malformed (the tool's command line: an unknown option, a negative time); `reason` says how.
    case usage(reason: String)

    /// The stage this error belongs to.
    public var stage: ExportStage {
        switch self {
        case .inputUnreadable, .notMedia: return .open
        case .noUsableStreams, .invalidTimeRange: return .probe
        case .presetNotFound, .invalidPreset: return .preset
        case .invalidSidecar, .versionUnavailable, .editNeedsTranscode: return .edit
        case .outputExists, .outputNotOwned, .outputIsInput, .outputOutsideSandbox, .outputUnwritable: return .write
        case .ffmpeg(let stage, _, _, _): return stage
        case .tooManyDecodeErrors, .truncated, .stalled: return .decode
        case .inputChanged: return .open
        case .copyMismatch: return .write
        case .verificationFailed, .planMismatch: return .write
        case .sizeLimitExceeded: return .write
        case .cancelled: return .write
        case .usage: return .usage
        }
    }

    /// The file the error is about.
    public var path: String? {
        switch self {
        case .inputUnreadable(let p, _), .notMedia(let p, _), .noUsableStreams(let p, _), .invalidTimeRange(let p, _),
             .invalidPreset(let p, _, _), .invalidSidecar(let p, _, _), .versionUnavailable(let p, _, _),
             .editNeedsTranscode(let p, _), .outputExists(let p), .outputNotOwned(let p), .outputIsInput(let p), .outputOutsideSandbox(let p, _),
             .outputUnwritable(let p, _), .ffmpeg(_, let p, _, _), .tooManyDecodeErrors(let p, _, _), .truncated(let p, _), .stalled(let p, _),
             .inputChanged(let p, _), .copyMismatch(let p, _, _), .verificationFailed(let p, _), .planMismatch(let p, _), .sizeLimitExceeded(let p, _, _):
            return p
        case .presetNotFound, .cancelled, .usage: return nil
        }
    }

    /// The error's case, as a value programs can switch on or store (the `failed` record's `error`).
    public enum Kind: String, Codable, Sendable, CaseIterable {
        case inputUnreadable, notMedia, noUsableStreams, invalidTimeRange, presetNotFound, invalidPreset, invalidSidecar
        case versionUnavailable, editNeedsTranscode, outputExists, outputNotOwned, outputIsInput, outputOutsideSandbox, outputUnwritable
        case ffmpeg, tooManyDecodeErrors, truncated, stalled, inputChanged, copyMismatch, verificationFailed, planMismatch, sizeLimitExceeded, cancelled, usage
    }

    /// Which case this is.
    public var kind: Kind {
        switch self {
        case .inputUnreadable: return .inputUnreadable
        case .notMedia: return .notMedia
        case .noUsableStreams: return .noUsableStreams
        case .invalidTimeRange: return .invalidTimeRange
        case .presetNotFound: return .presetNotFound
        case .invalidPreset: return .invalidPreset
        case .invalidSidecar: return .invalidSidecar
        case .versionUnavailable: return .versionUnavailable
        case .editNeedsTranscode: return .editNeedsTranscode
        case .outputExists: return .outputExists
        case .outputNotOwned: return .outputNotOwned
        case .outputIsInput: return .outputIsInput
        case .outputOutsideSandbox: return .outputOutsideSandbox
        case .outputUnwritable: return .outputUnwritable
        case .ffmpeg: return .ffmpeg
        case .tooManyDecodeErrors: return .tooManyDecodeErrors
        case .truncated: return .truncated
        case .stalled: return .stalled
        case .inputChanged: return .inputChanged
        case .copyMismatch: return .copyMismatch
        case .verificationFailed: return .verificationFailed
        case .planMismatch: return .planMismatch
        case .sizeLimitExceeded: return .sizeLimitExceeded
        case .cancelled: return .cancelled
        case .usage: return .usage
        }
    }

    /// How the fallback chain sees this failure (`FallbackPolicy.next`): damage in the input's data, another fault
    /// of the input's (it opened as media but a codec, the muxer or the check of the output failed on it), or a
    /// failure that no other route would answer (output, cancellation, usage, an input that changed).
    package var routeFailure: RouteFailure {
        switch self {
        case .truncated, .tooManyDecodeErrors: return .damaged
        case .ffmpeg(let stage, _, _, _): return [.decode, .filter, .encode, .mux].contains(stage) ? .inputFault : .hostFault
        case .stalled, .verificationFailed, .planMismatch: return .inputFault
        default: return .hostFault
        }
    }
}

extension ExportError: LocalizedError, CustomStringConvertible {
    /// What `outputNotOwned` says of the file (a batch tries an asset failed for this reason again in every run).
    public static let notOwnedText = "exists and is not the file this batch wrote there"

    /// One line: the file, then the cause.
    public var description: String {
        switch self {
        case .inputUnreadable(let p, let r): return "\(Self.shown(path: p)): cannot read input: \(Self.shown(r))"
        case .notMedia(let p, let r): return "\(Self.shown(path: p)): not a video or audio file mediaexport can export: \(Self.shown(r))"
        case .noUsableStreams(let p, let r): return "\(Self.shown(path: p)): nothing to export: \(Self.shown(r))"
        case .invalidTimeRange(let p, let r): return "\(Self.shown(path: p)): invalid time range: \(Self.shown(r))"
        case .presetNotFound(let n, let known):
            let guess = Suggestion.closest(to: n, in: known).map { "did you mean '\($0)'? " } ?? ""
            return "unknown preset '\(Self.shown(n, limit: 200))' (\(guess)built in: \(known.joined(separator: ", ")); or give a path to a .json preset file)"
        case .invalidPreset(let p, let f, let r): return "\(Self.shown(path: p)): invalid preset: field '\(Self.shown(f, limit: 250))': \(Self.shown(r))"
        case .invalidSidecar(let p, let f, let r): return "\(Self.shown(path: p)): invalid edit sidecar: field '\(Self.shown(f, limit: 250))': \(Self.shown(r))"
        case .versionUnavailable(let p, let v, let r): return "\(Self.shown(path: p)): the \(v.rawValue) version cannot be delivered: \(Self.shown(r))"
        case .editNeedsTranscode(let p, let e):
            return "\(Self.shown(path: p)): \(e.joined(separator: " and ")) cannot be applied by passthrough (stream copy); use a transcoding preset such as highest"
        case .outputExists(let p): return "\(Self.shown(path: p)): output exists (use --overwrite to replace it)"
        case .outputNotOwned(let p):
            return "\(Self.shown(path: p)): \(Self.notOwnedText); left untouched (use --overwrite to replace it)"
        case .outputIsInput(let p): return "\(Self.shown(path: p)): output is the input file itself; refusing to overwrite the input"
        case .outputOutsideSandbox(let p, let s): return "\(Self.shown(path: p)): output resolves outside the sandbox \(Self.shown(path: s))"
        case .outputUnwritable(let p, let r): return "\(Self.shown(path: p)): cannot write output: \(Self.shown(r))"
        case .ffmpeg(let stage, let p, _, let m): return "\(Self.shown(path: p)): \(stage.rawValue) failed: \(Self.shown(m))"
        case .tooManyDecodeErrors(let p, let n, let t):
            return t == 0 ? "\(Self.shown(path: p)): decode error (strict mode): \(n) corrupt packet(s) or frame(s)"
                          : "\(Self.shown(path: p)): too many decode errors: \(n) corrupt packets or lost frames (threshold \(t))"
        case .truncated(let p, let r): return "\(Self.shown(path: p)): \(Self.shown(r))"
        case .stalled(let p, let s): return "\(Self.shown(path: p)): export stalled: no progress for \(Int(saturating: s)) s"
        case .inputChanged(let p, let r): return "\(Self.shown(path: p)): input changed while being read: \(Self.shown(r))"
        case .copyMismatch(let p, let e, let a): return "\(Self.shown(path: p)): copy does not match its source (SHA-256 \(a.prefix(12))… ≠ \(e.prefix(12))…)"
        case .verificationFailed(let p, let c): return "\(Self.shown(path: p)): the output does not match its plan: \(Self.shown(c))"
        case .planMismatch(let p, let c):
            return "\(Self.shown(path: p)): internal plan mismatch (a mediaexport bug: the input decoded cleanly): \(Self.shown(c))"
        case .sizeLimitExceeded(let p, let limit, let r): return "\(Self.shown(path: p)): cannot fit in \(limit) bytes: \(Self.shown(r)); nothing written"
        case .cancelled: return "export cancelled; no output written"
        case .usage(let r): return Self.shown(r)
        }
    }
    /// The one-line `description`, for `LocalizedError` users.
    public var errorDescription: String? { description }

    /// A path for a message: normalised (`FileName.displayPath`: `out/../a.mov` → `a.mov`), raw bytes and control
    /// characters escaped; a very long one keeps its head and its tail (the file name).
    static func shown(path: String) -> String {
        let text = FileName.displayPath(path)
        guard text.count > 512 else { return text }
        return String(text.prefix(128)) + "…" + String(text.suffix(383))
    }

    /// Text that may hold an uploader's words (a JSON key, a value echoed in a reason, a name): escaped and cut,
    /// so that a 100 MB key cannot become a 100 MB message, event, report row or database entry.
    static func shown(_ text: String, limit: Int = 400) -> String { FileName.clip(FileName.display(text), limit: limit) }
}

extension ExportError {
    /// Turns a JSON decoding error into an error naming the file and the field (`video.crf`, `trim.start`).
    package static func describe(_ error: DecodingError, file path: String, sidecar: Bool) -> ExportError {
        func make(_ field: String, _ reason: String) -> ExportError {
            sidecar ? .invalidSidecar(path: path, field: field, reason: reason) : .invalidPreset(path: path, field: field, reason: reason)
        }
        func field(_ codingPath: [CodingKey], _ key: CodingKey? = nil) -> String {
            let keys = codingPath + (key.map { [$0] } ?? [])
            let joined = keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
                .replacingOccurrences(of: ".[", with: "[")
            return joined.isEmpty ? "-" : joined
        }
        switch error {
        case .typeMismatch(let type, let ctx): return make(field(ctx.codingPath), "expected \(type)")
        case .valueNotFound(let type, let ctx): return make(field(ctx.codingPath), "expected \(type), found null")
        case .keyNotFound(let key, let ctx): return make(field(ctx.codingPath, key), "required key is missing")
        // Foundation's text may quote the value ("invalid String value <the whole string>"): cut here, where it enters.
        case .dataCorrupted(let ctx): return make(field(ctx.codingPath), shown(ctx.debugDescription, limit: 200))
        @unknown default: return make("-", shown("\(error)", limit: 200))
        }
    }
}
