import ArgumentParser
import Foundation
import MediaExport

struct Resources: ToolCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the resources of the asset a file belongs to (original, rendered edit, sidecars, Live Photo pair).",
        discussion: """
        Files in the same folder that share a base name form one asset: IMG_1234.MOV (original), \
        IMG_E1234.MOV or IMG_1234_edited.mov (rendered edit), IMG_1234.edit.json (JSON edit sidecar), \
        IMG_1234.AAE (Apple adjustment data), IMG_1234.HEIC/.JPG (Live Photo still, whose .MOV is the paired video). \
        Any of them may be given. Case does not matter.

        Examples:
          mediaexport resources IMG_1234.MOV
          mediaexport resources --json IMG_E1234.MOV
        """
    )

    @Argument(help: "Any file of the asset.", completion: .file())
    var file: String

    @Flag(help: "Print JSON.")
    var json = false

    func perform() throws {
        try printJSON(try Asset.discover(from: file).describingAdjustments(), or: ResourceTable.render, json: json)
    }
}
