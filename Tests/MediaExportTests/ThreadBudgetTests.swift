import ArgumentParser
import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg
@testable import mediaexport

/// The thread budget: a request's `threads` reaches the decoders and encoders, a batch shares the cores among its
/// jobs, and `--threads` is parsed and refused below 1.
@Suite struct ThreadBudgetTests {
    /// x264 writes its settings into the stream (a user-data SEI: `... threads=1 lookahead_threads=1 ...`): what
    /// anyone can read back with `strings`, whatever wrapper made the file.
    static func x264Threads(_ path: String) throws -> Int? {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        guard let text = String(data: data, encoding: .isoLatin1), let range = text.range(of: " threads=") else { return nil }
        return Int(text[range.upperBound...].prefix { $0.isNumber })
    }

    @Test func sharesTheCoresAmongTheJobs() {
        #expect(BatchOptions.threadsPerJob(cores: 2, jobs: 2) == 1)
        #expect(BatchOptions.threadsPerJob(cores: 2, jobs: 1) == 2)
        #expect(BatchOptions.threadsPerJob(cores: 8, jobs: 3) == 2)
        #expect(BatchOptions.threadsPerJob(cores: 16, jobs: 4) == 4)
        // Never none: more jobs than cores still gives each one thread.
        #expect(BatchOptions.threadsPerJob(cores: 2, jobs: 5) == 1)
        #expect(BatchOptions.threadsPerJob(cores: 0, jobs: 0) == 1)
        #expect(BatchOptions.availableCores >= 1)
        #expect(BatchOptions.availableCores <= ProcessInfo.processInfo.processorCount)
    }

    /// The default number of jobs counts the cores the process may run on (a `taskset -c 0` batch runs one job).
    @Test func defaultJobsFollowTheAvailableCores() {
        #expect([1, 2, 3, 4, 6, 8, 16].map { BatchOptions.defaultJobs(cores: $0) } == [1, 2, 2, 2, 3, 4, 8])
        #expect(BatchOptions.defaultJobs == BatchOptions.defaultJobs(cores: BatchOptions.availableCores))
    }

    @Test(arguments: [1, 2])
    func aRequestsThreadsReachTheEncoder(threads: Int) throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let out = dir.appendingPathComponent("o.mp4").path
        var request = ExportRequest(input: TestSupport.fixture("landscape.mov"), output: out, preset: try TestSupport.preset("low"))
        request.threads = threads
        let done = try ExportSession(request: request).run()
        #expect(done.route == .transcode)
        // FFmpeg's automatic count would be 1.5 a core (3 on 2 cores); the request's count is x264's.
        #expect(try Self.x264Threads(out) == threads)
    }

    @Test func theVideoStagesCodecsGetTheCount() throws {
        let preset = try TestSupport.preset("low")
        let source = try ProbedSource(path: TestSupport.fixture("hd1080.mp4"), cancel: nil)
        let plan = try ExportPlanner.plan(source: source.info, preset: preset, route: .transcode, container: .mp4, edits: nil, range: nil)
        let decision = try #require(plan.streams.first { if case .transcodeVideo = $0.action { return true }; return false })
        guard case .transcodeVideo(let video) = decision.action else { Issue.record("no video transcode in the plan"); return }
        let demuxer = try source.takeDemuxer()
        let muxer = try Muxer(target: nil, container: .mp4, cancel: CancelToken())
        let timeline = Timeline(origin: plan.timeline.origin, length: nil, slowMotion: nil)
        let stage = try VideoTranscodeStage(input: demuxer.streams[decision.index], plan: video, muxer: muxer, timeline: timeline,
                                            strict: false, path: source.info.path, codecs: CodecRun(threads: 1))
        #expect(try #require(stage.decoding.inlineDecoder).context.pointee.thread_count == 1)
        #expect(stage.encoder.context.pointee.thread_count == 1)
    }

    @Test func aBatchGivesEveryJobItsShare() async throws {
        let dir = TestSupport.tempDir()
        defer { TestSupport.cleanup(dir) }
        let uploads = dir.appendingPathComponent("uploads")
        try FileManager.default.createDirectory(at: uploads, withIntermediateDirectories: true)
        // Two transcodes for `low` (both larger than its box), run two at once.
        // Not byte-identical (a title apart): identical uploads would be exported once (issue 31).
        try FileManager.default.copyItem(atPath: TestSupport.fixture("hd1080.mp4"), toPath: uploads.appendingPathComponent("a.mp4").path)
        try TestSupport.ffmpeg(["-i", TestSupport.fixture("hd1080.mp4"), "-c", "copy", "-metadata", "title=b", uploads.appendingPathComponent("b.mp4").path])
        let options = BatchOptions(inputs: [uploads.path], outputDirectory: dir.appendingPathComponent("out").path,
                                   preset: try TestSupport.preset("low"), jobs: 2)
        let result = try await BatchRunner(options: options).run()
        #expect(result.counts.failed == 0)
        let share = BatchOptions.threadsPerJob(cores: BatchOptions.availableCores, jobs: 2)
        for row in result.rows {
            #expect(row.route == "transcode")
            #expect(try Self.x264Threads(try #require(row.output)) == share, "\(row.key)")
        }

        // --threads overrides the share.
        var one = options
        one.outputDirectory = dir.appendingPathComponent("out-3").path
        one.threads = 3
        let again = try await BatchRunner(options: one).run()
        for row in again.rows { #expect(try Self.x264Threads(try #require(row.output)) == 3, "\(row.key)") }
    }

    @Test func threadsOptionIsParsedAndAtLeastOne() throws {
        #expect(try Batch.parse(["in", "--out", "o", "--threads", "3"]).exportOptions.threads == 3)
        #expect(try Batch.parse(["in", "--out", "o"]).exportOptions.threads == nil)
        #expect(try Export.parse(["--threads", "2", "in.mov", "out.mp4"]).exportOptions.threads == 2)
        #expect(try Export.parse(["in.mov", "out.mp4"]).exportOptions.threads == nil)
        for bad in ["0", "-1", "1025", "9223372036854775807"] {  // (as --threads=-1: a bare -1 reads as an option)
            do {
                _ = try Batch.parse(["in", "--out", "o", "--threads=\(bad)"])
                Issue.record("batch --threads \(bad) was accepted")
            } catch {
                #expect(Batch.message(for: error) == "--threads must be from 1 to 1024, got \(bad)", "\(bad)")
            }
            do {
                _ = try Export.parse(["--threads=\(bad)", "in.mov", "out.mp4"])
                Issue.record("export --threads \(bad) was accepted")
            } catch {
                #expect(Export.message(for: error) == "--threads must be from 1 to 1024, got \(bad)", "\(bad)")
            }
        }
        #expect(throws: (any Error).self) { try Batch.parse(["in", "--out", "o", "--threads", "many"]) }
    }
}
