import Foundation
import MediaExportCore
import MediaExportFFmpeg

/// What a run's outputs depend on besides the samples and the presets. Every field is optional: a baseline made
/// before one was recorded has none there, which means "not recorded", never a difference. (The libav* versions are
/// the baseline's `ffmpeg` lines.)
public struct RegressEnvironment: Codable, Sendable, Equatable {
    /// FFmpeg's release (`av_version_info`; Debian's includes the package version, `5.1.9-0+deb12u1`).
    public var ffmpeg: String?
    /// x264, x265 and zimg as loaded (`libx264.so.164`, `libx265.so.199 (3.5+1-f0c1022b6)`, `libzimg.so.2.0.0 (3.0.4)`).
    public var libraries: [String]?
    /// The processor's vector features (`sse2` … `avx2`, `fma3`, `avx512`).
    public var cpu: [String]?
    /// The cores the process could run on.
    public var cores: Int?
    /// Whether the exports ran with `--deterministic` (then the CPU does not explain a difference).
    public var deterministic: Bool?

    /// Creates a record; nil fields are "not recorded".
    public init(ffmpeg: String? = nil, libraries: [String]? = nil, cpu: [String]? = nil, cores: Int? = nil, deterministic: Bool? = nil) {
        self.ffmpeg = ffmpeg; self.libraries = libraries; self.cpu = cpu; self.cores = cores; self.deterministic = deterministic
    }

    /// This process's environment.
    public static func current(deterministic: Bool) -> RegressEnvironment {
        RegressEnvironment(ffmpeg: FFmpegVersions.release, libraries: ExternalLibraries.lines, cpu: CPUFeatures.vector,
                           cores: Cores.available, deterministic: deterministic)
    }
}

/// A preset as a baseline records it: its settings as a JSON object, and the SHA-256 of that JSON (keys sorted).
public struct PresetRecord: Sendable, Equatable {
    /// SHA-256 of the preset encoded as JSON with `.sortedKeys`.
    public var sha256: String
    /// The same JSON, as a value.
    public var settings: JSONValue

    /// Records `preset`.
    public init(_ preset: Preset) throws {
        // The hash a batch keeps for its settings (the same JSON), so both name one preset alike.
        sha256 = BatchPlanner.presetHash(preset)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        settings = try JSONDecoder().decode(JSONValue.self, from: encoder.encode(preset))
    }
}

/// What a run's reports say about where it ran: the tool, the baseline, the environment and the command line.
public struct RegressContext: Sendable, Equatable {
    /// The tool and its version (`mediaexport 0.1.0`).
    public var tool: String
    /// The baseline file as given.
    public var baseline: String
    /// The FFmpeg libraries (libav*) of this run.
    public var libav: [String]
    /// The rest of this run's environment.
    public var environment: RegressEnvironment
    /// The command line, its arguments as given.
    public var commandLine: [String]

    /// Creates a context.
    public init(tool: String, baseline: String, libav: [String], environment: RegressEnvironment, commandLine: [String]) {
        self.tool = tool; self.baseline = baseline; self.libav = libav; self.environment = environment; self.commandLine = commandLine
    }

    /// Name and value of each fact, in order (JUnit's `<properties>`, the HTML page's header).
    public var properties: [(name: String, value: String)] {
        let e = environment
        return [("tool", tool), ("baseline", baseline), ("ffmpeg", e.ffmpeg ?? "not recorded"),
                ("ffmpeg.libraries", libav.joined(separator: ", ")), ("libraries", (e.libraries ?? []).joined(separator: ", ")),
                ("cpu", (e.cpu ?? []).joined(separator: " ")), ("cores", e.cores.map(String.init) ?? "not recorded"),
                ("deterministic", e.deterministic.map { "\($0)" } ?? "not recorded")]
    }
}

/// Why a failing case's output may have moved, named before the properties that did.
public struct RegressCause: Codable, Sendable, Equatable, CustomStringConvertible {
    /// The causes, in the order they are looked for: the first that holds is the one named.
    public enum Kind: String, Codable, Sendable {
        /// The sample's SHA-256 differs.
        case sampleChanged
        /// The preset's SHA-256 differs: a preset of that name with other settings.
        case presetChanged
        /// FFmpeg (its release or a libav* version), x264, x265 or zimg differs.
        case librariesChanged
        /// The CPU's vector features differ, and the baseline is not deterministic.
        case cpuDiffers
    }
    /// Which cause.
    public var kind: Kind
    /// What changed (`video.crf 28 → 40`; the libraries; the CPU features).
    public var detail: String?

    /// `preset changed (video.crf 28 → 40)`.
    public var description: String {
        let headline: String
        switch kind {
        case .sampleChanged: headline = "sample changed"
        case .presetChanged: headline = "preset changed"
        case .librariesChanged: headline = "libraries changed"
        case .cpuDiffers: headline = "CPU differs"
        }
        return detail.map { "\(headline) (\($0))" } ?? headline
    }
}

/// Finds a failing case's first cause by comparing what its baseline entry was made from with this run.
struct CauseFinder {
    /// The libraries' and the CPU's causes hold for every case of the run: found once.
    let libraries: RegressCause?
    let cpu: RegressCause?

    /// Compares the baseline's environment (its `ffmpeg` lines and `environment`) with `here`.
    init(baseline: Baseline, here: RegressEnvironment, libav: [String]) {
        let old = baseline.environment ?? RegressEnvironment()
        var changed: [String] = []
        if baseline.ffmpeg != libav { changed += Self.moved(baseline.ffmpeg, libav) }
        if let f = old.ffmpeg, f != here.ffmpeg { changed.append("FFmpeg \(f) → \(here.ffmpeg ?? "none")") }
        if let l = old.libraries, l != here.libraries { changed += Self.moved(l, here.libraries ?? []) }
        libraries = changed.isEmpty ? nil : RegressCause(kind: .librariesChanged, detail: changed.joined(separator: ", "))
        if old.deterministic != true, let before = old.cpu, let now = here.cpu, before != now {
            let (a, b) = (Self.strongest(before), Self.strongest(now))
            let detail = a != b ? "baseline \(a), here \(b)"
                : "baseline \(before.joined(separator: " ")), here \(now.joined(separator: " "))"
            cpu = RegressCause(kind: .cpuDiffers, detail: detail)
        } else {
            cpu = nil
        }
    }

    /// The first cause for a case whose entry is `entry`, run on a sample hashed `sampleSHA256` with `preset`.
    func cause(entry: Baseline.Entry, sampleSHA256: String?, preset: PresetRecord) -> RegressCause? {
        if let old = entry.sampleSHA256, let new = sampleSHA256, old != new {
            return RegressCause(kind: .sampleChanged, detail: "SHA-256 \(old.prefix(12))… → \(new.prefix(12))…")
        }
        if let old = entry.presetSHA256, old != preset.sha256 {
            let changes = entry.presetSettings.map { SettingsChanges.between($0, preset.settings) } ?? []
            return RegressCause(kind: .presetChanged, detail: changes.isEmpty ? nil : changes.joined(separator: ", "))
        }
        return libraries ?? cpu
    }

    /// `a → b` for each line that differs, pairing lines by their first word (the library's name).
    static func moved(_ old: [String], _ new: [String]) -> [String] {
        func name(_ line: String) -> String { String(line.split(separator: " ").first ?? "").components(separatedBy: ".so").first ?? line }
        let names = (old + new).map(name).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        return names.compactMap { n in
            let a = old.first { name($0) == n }, b = new.first { name($0) == n }
            return a == b ? nil : "\(a ?? "\(n) none") → \(b ?? "none")"
        }
    }

    /// The strongest feature of a list (weakest first) and an ellipsis for the ones below it: `avx512icl…`.
    static func strongest(_ features: [String]) -> String {
        guard let top = features.last else { return "no vector features" }
        return features.count > 1 ? top + "…" : top
    }
}
