import ArgumentParser
import MediaExport

/// Shell completion after `--preset`: the built-in presets' names, written into the generated bash, zsh and fish
/// scripts (so an installed script offers the presets installed with it). The user's own presets are not offered:
/// they may change after the script is generated; a preset file's path is typed as a path.
enum PresetCompletion {
    /// The built-in presets' names in display order; none when the built-in folder is not found or does not load
    /// (then `export` and `batch` report that themselves). Read only when a completion script is being generated:
    /// ArgumentParser builds every option's completion as it parses, and an export must not read the catalog twice.
    static let builtInNames: [String] = {
        guard CommandLine.arguments.contains("--generate-completion-script"), let dir = PresetCatalog.builtInDirectory(), let catalog = try? PresetCatalog(directory: dir) else { return [] }
        return catalog.presets.map(\.name)
    }()

    /// The completion for a `--preset` option.
    static var kind: CompletionKind { .list(builtInNames) }
}
