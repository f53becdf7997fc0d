import ArgumentParser
import Foundation
import MediaExport

struct Presets: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the built-in presets.",
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
        if json {
            try printJSON(catalog.presets)
            return
        }
        printLine(PresetTable.render(catalog.presets))
    }
}
