import ArgumentParser
import Foundation
import MediaExport

struct Presets: ToolCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the presets: the built-ins, then your own (MEDIAEXPORT_PRESETS_DIR, ~/.config/mediaexport/presets).",
        discussion: """
        Examples:
          mediaexport presets
          mediaexport presets --json | jq '.[].name'
        """,
        subcommands: [Show.self]
    )

    @Flag(help: "Print the presets as a JSON list.")
    var json = false

    func perform() throws {
        let catalog = try PresetCatalog.builtIn()
        for note in catalog.notes { printError("note: " + note) }
        if json {
            try printJSON(catalog.presets)
            return
        }
        printLine(PresetTable.render(catalog.presets))
        if !catalog.userPresetNames.isEmpty {
            printHuman("user presets (\(catalog.userDirectories.map(\.path).joined(separator: ", "))): "
                      + catalog.userPresetNames.sorted().joined(separator: ", "))
        }
    }
}

extension Presets {
    /// `presets show NAME`: a preset as a file to edit and load with `--preset FILE`, under a new name.
    struct Show: ToolCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a preset (name, Apple alias or file) as a preset file named NAME-custom, to edit and load with --preset FILE.",
            discussion: """
            Examples:
              mediaexport presets show 1280x720 > 720p.json
              mediaexport --preset 720p.json in.mov out.mp4
              mediaexport presets show highest --as archive > archive.json
            """
        )

        @Argument(help: "Preset name, Apple alias or preset .json file.")
        var preset: String

        @Option(name: .customLong("as"), help: "The copy's name (default: the preset's name with -custom); never a preset's name or alias.")
        var newName: String?

        func perform() throws {
            let catalog = try PresetCatalog.builtIn()
            let source = try catalog.resolve(preset)
            let name = newName ?? Preset.customName(for: source.name)
            if (try? catalog.resolve(name)) != nil {
                throw ExportError.usage(reason: "--as \(name): a preset is named so already; the copy would stand in for it (pick another name)")
            }
            if name.isEmpty || name.contains("/") { throw ExportError.usage(reason: "--as must be a non-empty name without '/'") }
            printLine(String(decoding: try source.fileJSON(named: name), as: UTF8.self))
        }
    }
}
