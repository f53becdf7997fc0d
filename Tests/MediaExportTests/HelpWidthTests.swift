import ArgumentParser
import Foundation
import Testing
@testable import mediaexport

/// Help examples fit an 80-column terminal: ArgumentParser wraps the discussion at the terminal's width, so an
/// example longer than that would be broken mid-command (issue 33).
@Suite struct HelpWidthTests {
    /// Every command's path (`[]` for the root, `["report", "merge"]` …) and its type, walking the subcommands.
    static func commands(_ type: ParsableCommand.Type = MediaExportCommand.self, path: [String] = []) -> [([String], ParsableCommand.Type)] {
        [(path, type)] + type.configuration.subcommands.flatMap { commands($0, path: path + [$0._commandName]) }
    }

    /// The example lines of a discussion or of a help text: those after `Examples:` up to the next blank line.
    static func examples(_ text: String) -> [String] {
        let lines = text.components(separatedBy: "\n")
        guard let start = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "Examples:" }) else { return [] }
        return Array(lines[(start + 1)...].prefix { !$0.trimmingCharacters(in: .whitespaces).isEmpty })
    }

    @Test func everyExampleFitsAndIsShownWhole() throws {
        let all = Self.commands()
        #expect(all.count >= 10)
        for (path, type) in all {
            let written = Self.examples(type.configuration.discussion)
            #expect(!written.isEmpty, "\(path): no examples")
            for line in written {
                #expect(line.count <= 78, "\(path): \(line.count) columns: \(line)")
                #expect(line.hasPrefix("  mediaexport "), "\(path): \(line)")
            }
            for args in [["help"] + path, path + ["--help"]] {
                let r = try TestSupport.run(TestSupport.binary, args, environment: ["COLUMNS": "80"])
                #expect(r.status == 0, "\(args): \(r.stderr)")
                #expect(Self.examples(r.stdout) == written, "\(args): examples wrapped:\n\(r.stdout)")
            }
        }
    }
}
