import ArgumentParser
import Foundation
import MediaExport

struct Presets: ParsableCommand {
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

    func run() throws {
        let catalog: PresetCatalog
        do { catalog = try PresetCatalog.builtIn() } catch let error as ExportError {
            printError(error.description)
            throw ExitCode(error.exitCode)
        }
        for note in catalog.notes { printError("note: " + note) }
        if json {
            try printJSON(catalog.presets)
            return
        }
        printLine(PresetTable.render(catalog.presets))
        if !catalog.userPresetNames.isEmpty {
            printLine("user presets (\(catalog.userDirectories.map(\.path).joined(separator: ", "))): "
                      + catalog.userPresetNames.sorted().joined(separator: ", "))
        }
    }
}
