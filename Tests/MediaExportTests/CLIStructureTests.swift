import Foundation
import Testing

/// The command-line target is a thin funnel over the library: it imports nothing below `MediaExport`, and turns
/// failures into messages and exit codes in one place.
@Suite struct CLIStructureTests {
    /// Every Swift file of `Sources/mediaexport`, with its text.
    static func cliSources() throws -> [(name: String, text: String)] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let folder = root.appendingPathComponent("Sources/mediaexport")
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return [] }
        return try walker.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }.map {
            ($0.lastPathComponent, try String(contentsOf: $0, encoding: .utf8))
        }
    }

    @Test func theToolImportsNothingBelowTheLibrary() throws {
        let sources = try Self.cliSources()
        #expect(sources.count >= 10)
        for (name, text) in sources {
            for line in text.split(separator: "\n") where line.contains("import ") {
                for module in ["MediaExportFFmpeg", "CFFmpeg", "CFFmpegLog", "MediaExportCore"] {
                    #expect(!line.hasSuffix("import \(module)"), "\(name): \(line)")
                }
            }
            #expect(!text.contains("cff_") && !text.contains("av_"), "\(name) calls a C function")
        }
    }

    @Test func failuresAreReportedInOnePlace() throws {
        let sources = try Self.cliSources()
        let reporting = sources.filter { $0.text.contains("catch let error as ExportError") && $0.text.contains("printError(error.description)") }
        #expect(reporting.map(\.name) == [], "each subcommand reports its own failures")
        #expect(!sources.contains { $0.text.contains("public ") }, "the executable target declares nothing public")
    }
}
