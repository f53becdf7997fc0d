/// What changed between two presets' settings (as JSON values: `Preset` encoded with sorted keys), for people:
/// a regress cause (`preset changed (video.crf 28 → 36)`) and a batch row's reason (`settings changed (…)`).
public enum SettingsChanges {
    /// The settings that differ (`video.crf 28 → 36`): those that change the output first (codecs and container,
    /// rate control, size and frame rate, the encoder's speed preset), then the rest by path; the names that change
    /// nothing (`name`, `aliases`, `summary`) only when nothing else differs.
    public static func between(_ old: JSONValue, _ new: JSONValue) -> [String] {
        let changed = JSONValue.changedLeaves(from: old, to: new)
        let settings = changed.filter { !naming.contains($0.path) }
        func rank(_ path: String) -> Int { outputFirst.firstIndex(of: path) ?? outputFirst.count }
        return (settings.isEmpty ? changed : settings).enumerated()
            .sorted { (rank($0.element.path), $0.offset) < (rank($1.element.path), $1.offset) }
            .map { "\($0.element.path) \($0.element.old ?? "none") → \($0.element.new ?? "none")" }
    }

    /// Settings by how directly they change the output, most first.
    static let outputFirst = ["passthrough", "defaultExtension", "video.codec", "audio.codec", "video.crf", "video.bitrate",
                              "video.maxBitrate", "video.bufferSize", "video.twoPass", "audio.bitrate", "video.maxSize",
                              "video.maxFrameRate", "video.pixelFormat", "audio.sampleRate", "audio.channels", "video.encoderPreset"]
    /// Settings that name or describe a preset and change no output.
    static let naming: Set<String> = ["name", "aliases", "summary"]
}
