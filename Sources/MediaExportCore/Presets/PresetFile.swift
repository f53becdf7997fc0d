import Foundation

extension Preset {
    /// The name `presets show` gives a copy of a preset: `NAME-custom`, so that the file never takes a built-in's
    /// name (a user preset that would is left out of the catalog, and `regress` keys its cases by name).
    public static func customName(for name: String) -> String { name + "-custom" }

    /// This preset as a preset file that `--preset FILE` loads: pretty, key-sorted JSON named `name`, with no
    /// aliases (an alias would clash with the built-in's), and only the rate control in force (a file may not give
    /// both `crf` and `bitrate`).
    public func fileJSON(named name: String) throws -> Data {
        var copy = self
        copy.name = name
        copy.aliases = []
        copy.summary = summary.isEmpty ? "Copy of \(self.name)" : "Copy of \(self.name): \(summary)"
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var object = try JSONSerialization.jsonObject(with: try encoder.encode(copy)) as? [String: Any] ?? [:]
        if copy.aliases.isEmpty { object["aliases"] = nil }
        if var video = object["video"] as? [String: Any], video["bitrate"] != nil {
            video["crf"] = nil
            object["video"] = video
        }
        return try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }
}
