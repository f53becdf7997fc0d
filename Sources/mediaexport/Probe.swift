import ArgumentParser
import Foundation
import MediaExport

struct Probe: ToolCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show a file's container, streams, colour (HDR, field order), rotation, creation time and location.",
        discussion: """
        Examples:
          mediaexport probe in.mov
          mediaexport probe --json in.mov
        """
    )

    @Argument(help: "The media file.", completion: .file())
    var file: String

    @Flag(help: "Print JSON.")
    var json = false

    func perform() throws {
        ToolProcess.quietFFmpegLog()
        try printJSON(try MediaFileProbe.probe(path: file), or: ProbeReport.render, json: json)
    }
}
