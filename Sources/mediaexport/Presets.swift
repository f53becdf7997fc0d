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
        """
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
