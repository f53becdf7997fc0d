import ArgumentParser
import Foundation
import MediaExport

/// The `mediaexport` tool: parses arguments and renders events; all work happens in the MediaExport library.
@main
struct MediaExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mediaexport",
        abstract: "Export video and audio with presets, on FFmpeg's libraries.",
        discussion: """
        Examples:
          mediaexport --preset highest in.mov out.mp4
          mediaexport --preset 1280x720 --start 5 --end 15 clip.mov part.mp4
          mediaexport presets
          mediaexport probe --json in.mov
        """,
        version: "mediaexport \(MediaExportVersion.string)\n" + FFmpegVersions.lines.joined(separator: "\n")
            + "\nFFmpeg \(FFmpegVersions.release)",
        subcommands: [Export.self, Batch.self, Regress.self, Thumbnail.self, Presets.self, Probe.self, Resources.self, Report.self],
        defaultSubcommand: Export.self
    )
}

/// Writes one line to stderr.
func printError(_ message: String) {
    FileHandle.standardError.write(Data(("mediaexport: " + message + "\n").utf8))
}

/// Writes one line to stdout and flushes it (JSON Lines readers read as we go).
func printLine(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Writes a value as pretty, key-sorted JSON on stdout (`--json` of presets, probe, resources, thumbnail).
func printJSON<T: Encodable>(_ value: T, pretty: Bool = true) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
    printLine(String(decoding: try encoder.encode(value), as: UTF8.self))
}
