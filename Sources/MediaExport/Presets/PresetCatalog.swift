import Foundation
import MediaExportCore
import MediaExportFFmpeg

/// Finds presets by name, Apple alias or file path, and validates preset files.
///
/// Built-in presets are the JSON files of the `Presets/` folder found from the executable's real location
/// (`/proc/self/exe`): `../share/mediaexport/Presets` beside its `bin/` folder (an install, `scripts/install.sh`), else the
/// `Presets/` folder of the source tree it was built from (a development build). Never the current directory.
/// User presets add to them, from `$MEDIAEXPORT_PRESETS_DIR` and `$XDG_CONFIG_HOME/mediaexport/presets` (default
/// `~/.config/mediaexport/presets`), in that order; one that would take a built-in's name or alias (or an earlier
/// user preset's) is left out, and `notes` says so.
public struct PresetCatalog: Sendable {
    /// The presets, sorted for display: the built-ins, then the user's.
    public let presets: [Preset]
    /// The built-in presets' folder.
    public let directory: URL
    /// The user preset folders read (those that exist).
    public let userDirectories: [URL]
    /// User presets left out, and why (a name a built-in or an earlier user preset has): for the tool to print.
    public let notes: [String]
    /// The names of the user's presets (shown apart by `mediaexport presets`).
    public let userPresetNames: Set<String>

    /// Loads every `*.json` preset of `directory` (only).
    public init(directory: URL) throws {
        try self.init(directory: directory, userDirectories: [])
    }

    /// Loads the built-in presets of `directory`, then the user presets of `userDirectories`.
    public init(directory: URL, userDirectories: [URL]) throws {
        self.directory = directory
        let builtIn = try PresetCatalog.presets(in: directory)
        var taken = Set(builtIn.flatMap { [$0.name.lowercased()] + $0.aliases.map { $0.lowercased() } })
        var user: [Preset] = [], notes: [String] = [], read: [URL] = []
        let builtInReal = FileSystem.realPath(directory.path)
        for dir in userDirectories where FileSystem.isDirectory(dir.path) {
            // The built-in folder named again (`MEDIAEXPORT_PRESETS_DIR` pointing at the source tree's) adds nothing.
            if let real = FileSystem.realPath(dir.path), real == builtInReal { continue }
            read.append(dir)
            for preset in try PresetCatalog.presets(in: dir) {
                let names = [preset.name.lowercased()] + preset.aliases.map { $0.lowercased() }
                if let clash = names.first(where: { taken.contains($0) }) {
                    notes.append("user preset \(dir.appendingPathComponent(preset.name).path).json left out: '\(clash)' is already "
                                 + "a preset's name (rename it, or give its path with --preset)")
                    continue
                }
                taken.formUnion(names)
                user.append(preset)
            }
        }
        presets = builtIn + user.sorted { $0.name < $1.name }
        self.userDirectories = read
        self.notes = notes
        userPresetNames = Set(user.map(\.name))
    }

    /// Every `*.json` preset of a folder, in display order.
    private static func presets(in directory: URL) throws -> [Preset] {
        guard let names = FileSystem.contents(ofDirectory: directory.path) else {
            throw ExportError.invalidPreset(path: directory.path, field: "-", reason: "cannot list preset folder: \(String(cString: strerror(errno)))")
        }
        let files = names.filter { PathName.pathExtension($0).lowercased() == "json" }.sorted()
            .map { directory.appendingPathComponent($0) }
        return try files.map { try PresetCatalog.load(file: $0) }
            .sorted { PresetCatalog.displayOrder($0) < PresetCatalog.displayOrder($1) }
    }

    /// The built-in catalog with the user's presets (see the type's documentation for where they are looked up).
    public static func builtIn() throws -> PresetCatalog {
        guard let dir = builtInDirectory() else {
            throw ExportError.invalidPreset(path: "Presets/", field: "-",
                                            reason: "built-in preset folder not found beside the executable (../share/mediaexport/Presets); install with scripts/install.sh")
        }
        return try PresetCatalog(directory: dir, userDirectories: userDirectories())
    }

    /// The user preset folders, in the order they are read: `$MEDIAEXPORT_PRESETS_DIR`, then
    /// `$XDG_CONFIG_HOME/mediaexport/presets` (default `~/.config/mediaexport/presets`).
    public static func userDirectories(environment: [String: String] = ProcessInfo.processInfo.environment) -> [URL] {
        var dirs: [URL] = []
        if let env = environment["MEDIAEXPORT_PRESETS_DIR"], !env.isEmpty { dirs.append(URL(fileURLWithPath: env)) }
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            dirs.append(URL(fileURLWithPath: xdg).appendingPathComponent("mediaexport/presets"))
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            dirs.append(URL(fileURLWithPath: home).appendingPathComponent(".config/mediaexport/presets"))
        }
        return dirs
    }

    /// The folder holding the built-in presets, if one is found: from the executable's real path (`/proc/self/exe`,
    /// never `argv[0]`, which a shell leaves relative to the current directory), `../share/mediaexport/Presets`; else
    /// the source tree's `Presets/`.
    public static func builtInDirectory() -> URL? {
        var candidates: [URL] = []
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"), exe.hasPrefix("/") {
            let bin = URL(fileURLWithPath: exe).deletingLastPathComponent()
            candidates.append(bin.appendingPathComponent("../share/mediaexport/Presets").standardizedFileURL)
        }
        // Source tree: Sources/MediaExport/Presets/PresetCatalog.swift → ../../../Presets
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../Presets").standardizedFileURL
        candidates.append(source)
        return candidates.first { FileSystem.isDirectory($0.path) }
    }

    /// Resolves `nameOrPath`: a path (contains `/` or ends in `.json`) loads that file; anything else is a
    /// built-in name or alias, matched case-insensitively.
    public func resolve(_ nameOrPath: String) throws -> Preset {
        if nameOrPath.contains("/") || nameOrPath.lowercased().hasSuffix(".json") {
            return try PresetCatalog.load(file: URL(fileURLWithPath: nameOrPath))
        }
        let key = nameOrPath.lowercased()
        if let p = presets.first(where: { $0.name.lowercased() == key || $0.aliases.contains { $0.lowercased() == key } }) {
            return p
        }
        throw ExportError.presetNotFound(name: nameOrPath, known: presets.map(\.name))
    }

    /// A note when `nameOrPath` is a preset file (not a name) whose preset takes the name or an alias of a catalog
    /// preset: wherever presets are told apart by name (`regress` keys its cases SAMPLE|PRESET), it stands in for
    /// that one. nil otherwise.
    public func shadowNote(for nameOrPath: String, resolved: Preset) -> String? {
        guard nameOrPath.contains("/") || nameOrPath.lowercased().hasSuffix(".json") else { return nil }
        let key = resolved.name.lowercased()
        guard let other = presets.first(where: { $0.name.lowercased() == key || $0.aliases.contains { $0.lowercased() == key } }) else { return nil }
        return "preset file \(nameOrPath) is named '\(resolved.name)', as the preset '\(other.name)': its cases are keyed by that name and "
            + "compared with that preset's baseline entries; rename it (e.g. '\(Preset.customName(for: other.name))') to keep them apart"
    }

    /// Loads and validates one preset file; errors name the file and the field. A file over
    /// `UntrustedFile.maxBytes`, nesting deeper than `UntrustedFile.maxDepth` or a key given twice in one object
    /// is refused before parsing.
    public static func load(file: URL) throws -> Preset {
        let path = file.path
        if !FileSystem.exists(path) { throw ExportError.presetNotFound(name: path, known: []) }
        return try parse(try UntrustedFile.read(path, kind: "preset files", invalid: ExportError.invalidPreset), path: path)
    }

    /// Parses and validates a preset file's bytes; `path` names it in errors (`ExportError.invalidPreset`).
    public static func parse(_ data: Data, path: String) throws -> Preset {
        do {
            try JSONStructure.check(data, kind: "preset files")
        } catch let refusal as UntrustedFile.Refusal {
            throw ExportError.invalidPreset(path: path, field: refusal.field, reason: refusal.reason)
        }
        let object: Any
        do { object = try JSONSerialization.jsonObject(with: data) } catch {
            throw ExportError.invalidPreset(path: path, field: "-", reason: "not valid JSON")
        }
        guard let dict = object as? [String: Any] else {
            throw ExportError.invalidPreset(path: path, field: "-", reason: "top level must be a JSON object")
        }
        try rejectUnknownKeys(dict, allowed: Preset.CodingKeys.allCases.map(\.rawValue), prefix: "", path: path)
        if let v = dict["video"] as? [String: Any] {
            try rejectUnknownKeys(v, allowed: VideoSettings.CodingKeys.allCases.map(\.rawValue), prefix: "video.", path: path)
            if let q = v["quality"] as? [String: Any] {
                try rejectUnknownKeys(q, allowed: QualityTarget.keys, prefix: "video.quality.", path: path)
            }
            // Two rate controls at once: one would silently lose.
            if v["crf"] != nil && v["bitrate"] != nil {
                throw ExportError.invalidPreset(path: path, field: "video.bitrate", reason: "give either crf or bitrate, not both")
            }
        }
        if let a = dict["audio"] as? [String: Any] {
            try rejectUnknownKeys(a, allowed: AudioSettings.CodingKeys.allCases.map(\.rawValue), prefix: "audio.", path: path)
        }
        let preset: Preset
        do { preset = try JSONDecoder().decode(Preset.self, from: data) } catch let error as DecodingError {
            throw ExportError.describe(error, file: path, sidecar: false)
        }
        try validate(preset, path: path)
        return preset
    }

    /// Checks values that JSON types alone cannot (ranges, names the encoders know): `Preset.validate(path:)`.
    static func validate(_ p: Preset, path: String) throws {
        try p.validate(path: path)
    }

    private static func rejectUnknownKeys(_ dict: [String: Any], allowed: [String], prefix: String, path: String) throws {
        if let unknown = dict.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw ExportError.invalidPreset(path: path, field: prefix + UntrustedFile.echo(unknown),
                                            reason: "unknown key (known: \(allowed.joined(separator: ", ")))")
        }
    }

    private static func displayOrder(_ p: Preset) -> (Int, Int, String) {
        let fixed = ["highest", "medium", "low"]
        if let i = fixed.firstIndex(of: p.name) { return (0, i, p.name) }
        if p.passthrough { return (4, 0, p.name) }
        if p.video == nil { return (5, 0, p.name) }
        let group = 1 + (p.video.flatMap { VideoCodec.allCases.firstIndex(of: $0.codec) } ?? 0)  // H.264, HEVC, AV1
        return (group, p.video?.maxSize?.long ?? 0, p.name)
    }
}
