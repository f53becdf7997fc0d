import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg
@testable import mediaexport

@Suite struct SafeOutputTests {
    let input = TestSupport.fixture("landscape.mov")

    @Test func existingOutputIsRefusedUnlessOverwrite() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("out.mp4").path
        try "keep me".write(toFile: out, atomically: true, encoding: .utf8)
        #expect(throws: ExportError.outputExists(path: out)) { try TestSupport.export(input, to: out, preset: "low") }
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "keep me")
        try TestSupport.export(input, to: out, preset: "low", overwrite: true)
        #expect(try FFprobe(out).video?.codec == "h264")
        #expect(TestSupport.contents(dir) == ["out.mp4"])
    }

    @Test func inputIsNeverTheOutput() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let copy = dir.appendingPathComponent("in.mov")
        try FileManager.default.copyItem(atPath: input, toPath: copy.path)
        let before = try TestSupport.sha256(copy.path)
        let symlink = dir.appendingPathComponent("link.mov").path
        try FileManager.default.createSymbolicLink(atPath: symlink, withDestinationPath: copy.path)
        let hardlink = dir.appendingPathComponent("hard.mov").path
        try FileManager.default.linkItem(atPath: copy.path, toPath: hardlink)
        let viaDots = dir.appendingPathComponent("sub").path
        try FileManager.default.createDirectory(atPath: viaDots, withIntermediateDirectories: true)
        for target in [copy.path, symlink, hardlink, viaDots + "/../in.mov"] {
            #expect(throws: ExportError.outputIsInput(path: target)) {
                try TestSupport.export(copy.path, to: target, preset: "passthrough", overwrite: true)
            }
        }
        #expect(try TestSupport.sha256(copy.path) == before)
        #expect(TestSupport.contents(dir) == ["hard.mov", "in.mov", "link.mov", "sub"])
    }

    @Test func sandboxIsEnforced() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let sandbox = dir.appendingPathComponent("sandbox")
        let outside = dir.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: sandbox, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        let escape = sandbox.appendingPathComponent("escape")
        try FileManager.default.createSymbolicLink(atPath: escape.path, withDestinationPath: outside.path)
        for target in [sandbox.path + "/../outside/a.mp4", escape.path + "/b.mp4", outside.path + "/c.mp4"] {
            do {
                try TestSupport.export(input, to: target, preset: "low", sandbox: sandbox.path)
                Issue.record("\(target) escaped the sandbox")
            } catch ExportError.outputOutsideSandbox {}
        }
        #expect(TestSupport.contents(outside).isEmpty)
        try TestSupport.export(input, to: sandbox.path + "/inside.mp4", preset: "low", sandbox: sandbox.path)
        #expect(TestSupport.contents(sandbox) == ["escape", "inside.mp4"])
    }

    @Test func missingOrUnwritableOutputFolderIsRefusedBeforeWork() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let missing = dir.appendingPathComponent("nope/out.mp4").path
        #expect(throws: ExportError.self) { try TestSupport.export(input, to: missing, preset: "low") }
        let unknown = dir.appendingPathComponent("out.avi").path
        do { try TestSupport.export(input, to: unknown, preset: "low"); Issue.record("avi accepted") } catch let ExportError.outputUnwritable(_, reason) {
            #expect(reason.contains("unsupported container"))
        }
        #expect(TestSupport.contents(dir).isEmpty)
    }

    @Test func noExtensionUsesPresetContainer() throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let completed = try TestSupport.export(input, to: dir.appendingPathComponent("clip").path, preset: "m4a")
        #expect(completed.output.hasSuffix("clip.m4a"))
        #expect(TestSupport.contents(dir) == ["clip.m4a"])
    }

    /// Inputs that are not media: a clear error naming the file, the documented exit code, nothing left behind.
    @Test(arguments: ["empty", "text", "truncated-head", "truncated-half", "missing"])
    func badInputGetsClearErrorAndLeavesNothing(kind: String) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let bad = dir.appendingPathComponent("bad-\(kind).mov").path
        let source = try Data(contentsOf: URL(fileURLWithPath: TestSupport.fixture("landscape.mov")))
        switch kind {
        case "empty": _ = FileManager.default.createFile(atPath: bad, contents: Data())
        case "text": try "this is not a movie\n".write(toFile: bad, atomically: true, encoding: .utf8)
        case "truncated-head": _ = FileManager.default.createFile(atPath: bad, contents: source.prefix(64))
        case "truncated-half": _ = FileManager.default.createFile(atPath: bad, contents: source.prefix(source.count / 2))
        default: break
        }
        let before = kind == "missing" ? "" : try TestSupport.sha256(bad)
        let out = dir.appendingPathComponent("out.mp4").path
        do {
            try TestSupport.export(bad, to: out, preset: "low")
            Issue.record("\(kind) exported")
        } catch let error as ExportError {
            #expect(error.path == bad)
            #expect(error.description.hasPrefix(bad))
            #expect(!error.description.contains("\n"))
            switch kind {
            case "missing": #expect(error.exitCode == ExitStatus.inputUnreadable)
            default: #expect(error.exitCode == ExitStatus.notMedia)
            }
        }
        #expect(!TestSupport.contents(dir).contains { $0.contains("out.mp4") })
        if kind != "missing" { #expect(try TestSupport.sha256(bad) == before) }
    }

    @Test func inputsAreNeverModified() throws {
        let before = try TestSupport.sha256(input)
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        try TestSupport.export(input, to: dir.appendingPathComponent("a.mp4").path, preset: "low")
        try TestSupport.export(input, to: dir.appendingPathComponent("b.mov").path, preset: "passthrough")
        #expect(try TestSupport.sha256(input) == before)
    }
}
