import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg

/// `states(updateInterval:)` on a session and a batch runner: one sequence per observer, ending with the end.
@Suite struct StatesTests {
    /// Everything one observer's sequence yields, read to its end.
    static func collect<S: AsyncSequence & Sendable>(_ states: S) -> Task<[S.Element], Never> where S.Element: Sendable {
        Task {
            var seen: [S.Element] = []
            do { for try await state in states { seen.append(state) } } catch {}
            return seen
        }
    }

    static func session(_ dir: URL, input: String = "landscape.mov", preset: String = "low") throws -> ExportSession {
        ExportSession(request: ExportRequest(input: TestSupport.fixture(input), output: dir.appendingPathComponent("out.mp4").path,
                                             preset: try TestSupport.preset(preset)))
    }

    @Test func twoObserversEachSeeTheWholeExport() async throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let session = try Self.session(dir)
        session.progressInterval = 0
        let first = Self.collect(session.states(updateInterval: 0))
        let second = Self.collect(session.states(updateInterval: 0.05))
        _ = try await session.export()
        for observer in [first, second] {
            let states = await observer.value
            let statuses = states.map(\.status)
            #expect(statuses.first == .waiting && statuses.last == .completed, "\(statuses)")
            #expect(statuses.contains(.exporting))
            #expect(statuses.firstIndex(of: .exporting)! < statuses.firstIndex(of: .completed)!)
            let progress = states.map(\.progress)
            #expect(progress == progress.sorted() && progress.last == 1, "\(progress)")
            #expect(states.filter(\.isFinal).count == 1)
        }
        // Observing after the end: the final state alone, then the end.
        let late = await Self.collect(session.states(updateInterval: 1)).value
        #expect(late.map(\.status) == [.completed])
    }

    @Test func aCancelledExportsStatesEndInCancelled() async throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let session = try Self.session(dir, input: "hd1080.mp4", preset: "highest")
        session.progressInterval = 0
        session.onEvent = { event in
            if case .progress(let p) = event, p.outputTime > 0 { session.cancel() }
        }
        let observer = Self.collect(session.states(updateInterval: 0))
        await #expect(throws: ExportError.cancelled) { try await session.export() }
        let statuses = await observer.value.map(\.status)
        #expect(statuses.last == .cancelled && statuses.contains(.exporting), "\(statuses)")
    }

    @Test func aSessionRunsOnce() async throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let session = try Self.session(dir)
        let completed = try session.run()
        let events = EventCollector()
        session.onEvent = { events.append($0) }
        #expect(throws: ExportError.self) { try session.run() }
        do {
            _ = try await session.export()
            Issue.record("a second export ran")
        } catch let error as ExportError {
            #expect(error.kind == .usage)
            #expect(error.description.contains("already run"))
        }
        // The first export stands: its status, its file, no event from the refused calls.
        #expect(session.status == .completed && session.error == nil)
        #expect(FileSystem.size(completed.output) == completed.bytes)
        #expect(events.all.isEmpty)
    }

    @Test func aBatchRunnersStatesEndWithTheBatch() async throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let uploads = dir.appendingPathComponent("uploads")
        try FileManager.default.createDirectory(at: uploads, withIntermediateDirectories: true)
        for name in ["hevc.mp4", "landscape.mov"] {
            try FileManager.default.copyItem(atPath: TestSupport.fixture(name), toPath: uploads.appendingPathComponent(name).path)
        }
        let runner = BatchRunner(options: BatchOptions(inputs: [uploads.path], outputDirectory: dir.appendingPathComponent("out").path,
                                                       preset: try TestSupport.preset("low"), jobs: 2))
        let first = Self.collect(runner.states(updateInterval: 0))
        let second = Self.collect(runner.states(updateInterval: 0.1))
        let result = try await runner.run()
        #expect(result.outcome == .completed)
        for observer in [first, second] {
            let states = await observer.value
            #expect(states.first?.status == .waiting, "\(states)")
            let last = try #require(states.last)
            #expect(last.status == .finished && last.outcome == result.outcome && last.jobs == 2 && last.jobsEnded == 2 && last.progress == 1)
            #expect(states.filter { $0.status == .finished }.count == 1)
            let progress = states.map(\.progress)
            #expect(progress == progress.sorted(), "\(progress)")
        }
        // A runner runs once.
        await #expect(throws: ExportError.self) { try await runner.run() }
        let late = await Self.collect(runner.states(updateInterval: 0)).value
        #expect(late.map(\.status) == [.finished])
    }
}
