import Foundation
import Testing
@testable import MediaExport
@testable import mediaexport

/// `export` and `batch` take one file's export options from one group (`ExportOptions`): batch has every option of
/// export but those of one file in place, with the same words and default, and they reach every job's request.
@Suite struct SharedExportOptionsTests {
    /// What `export` has that `batch` does not take: one file's range, edits and sandbox, and its overwrite flags
    /// (batch's `-y` replaces files it did not write, docs/batch.md).
    static let perFile: Set<String> = ["start", "end", "duration", "edits", "sandbox", "overwrite", "no-overwrite"]
    /// Options both have, each command in its own words: what the command prints.
    static let ownWords: Set<String> = ["json", "quiet", "verbose"]

    /// A command's options from `--experimental-dump-help`, by preferred name: their names, help and default.
    static func options(_ command: String) throws -> [String: (names: [String], help: String, defaultValue: String?)] {
        let r = try TestSupport.tool([command, "--experimental-dump-help"])
        #expect(r.status == 0, "\(r.stderr)")
        let dump = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let arguments = try #require((dump["command"] as? [String: Any])?["arguments"] as? [[String: Any]])
        var found: [String: (names: [String], help: String, defaultValue: String?)] = [:]
        for argument in arguments {
            guard let names = argument["names"] as? [[String: String]], let preferred = argument["preferredName"] as? [String: String],
                  let name = preferred["name"], name != "help" else { continue }
            found[name] = (names.compactMap { $0["name"] }.sorted(), argument["abstract"] as? String ?? "", argument["defaultValue"] as? String)
        }
        return found
    }

    @Test func batchTakesEveryOptionOfOneFilesExport() throws {
        let export = try Self.options("export"), batch = try Self.options("batch")
        #expect(export.count >= 30, "\(export.keys.sorted())")
        for name in ["strict", "max-decode-errors", "stall-timeout", "pipeline", "metadata", "crf", "require-current"] {
            #expect(batch[name] != nil, "batch lacks --\(name)")
        }
        for (name, option) in export where !Self.perFile.contains(name) {
            guard let same = batch[name] else { Issue.record("batch lacks --\(name)"); continue }
            #expect(same.names == option.names, "--\(name)")
            if !Self.ownWords.contains(name) {
                #expect(same.help == option.help && same.defaultValue == option.defaultValue, "--\(name): not the shared option")
            }
        }
        for name in Self.perFile.union(Self.ownWords) { #expect(export[name] != nil, "export has no --\(name)") }
    }

    /// The same options make the same request in `export` and in every job of `batch`, but for what a job sets itself.
    @Test func batchOptionsReachEveryJobsRequest() throws {
        let shared = ["--strict", "--max-decode-errors", "3", "--stall-timeout", "9", "--pipeline", "off", "--metadata", "sharing",
                      "--damaged", "fail", "--fallback", "remux", "--threads", "2", "--audio", "first", "--audio-bitrate", "96k", "--max-size", "2MB",
                      "--estimate", "samples", "--original", "--deterministic", "-p", "low"]
        let options = try Batch.parse(["in", "--out", "o"] + shared).batchOptions()
        let template = options.request
        #expect(template.errors == ErrorPolicy(strict: true, maxDecodeErrors: 3, stallTimeout: 9, damaged: .fail))
        #expect(template.pipeline == .off && template.preset.metadata == .sharing && template.fallback == .remux)
        #expect(template.threads == 2 && template.tracks.firstAudioOnly && template.maxFileSize == 2_000_000)
        #expect(template.version == .original && template.deterministic && template.estimate == .samples)
        #expect(template.preset.name == "low" && options.preset.audio?.bitrate == 96_000)

        let item = BatchItem(key: "a.mov", input: "/in/a.mov", resources: ["/in/a.mov"], output: "/o/a.mp4", route: .transcode,
                             reason: "", duration: nil, sourceBytes: 0, estimatedBytes: nil, created: 0)
        let own = OwnedFile(size: 9, sha256: "ab")
        var job = BatchRunner(options: options).request(for: item, replaceable: [own], threads: 2)
        #expect(job.input == "/in/a.mov" && job.output == "/o/a.mp4" && !job.overwrite && job.replaceable == [own] && job.sandbox == "o")
        #expect(job.policy == .needed, "batch's own --policy, default needed")
        #expect(job.copyPlacement == .subfolder("fallback"), "a batch's byte copy in another container goes to fallback/")
        (job.input, job.output, job.replaceable, job.sandbox, job.policy, job.copyPlacement) = ("in.mov", "out.mp4", [], nil, .always, .beside)
        #expect(job == (try Export.parse(shared + ["in.mov", "out.mp4"]).request(catalog: PresetCatalog.builtIn())))
    }

    /// `--metadata all` is the default: a batch's settings hash (which decides re-exports) is the one with no option.
    @Test func metadataAllKeepsTheSettingsHash() throws {
        func hash(_ extra: [String]) throws -> String { try Batch.parse(["in", "--out", "o"] + extra).batchOptions().settingsHash }
        #expect(try hash(["--metadata", "all"]) == hash([]))
        #expect(try hash(["--metadata", "sharing"]) != hash([]))
        #expect(try hash(["--strict", "--pipeline", "off", "--stall-timeout", "9"]) == hash([]), "no setting of the output's bytes")
    }
}
