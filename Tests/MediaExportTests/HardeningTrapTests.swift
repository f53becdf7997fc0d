import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore
@testable import MediaExportFFmpeg

/// Issue 29, item 1: no Swift trap reachable from a file's numbers. Each conversion below took a value a file can
/// hold (a NaN or infinite timestamp, a rational with a zero denominator, a huge size) and trapped before.
@Suite("Hardening: conversions that cannot trap") struct HardeningTrapTests {
    @Test func audioSampleIndexIsBoundedAndNaNIsZero() {
        let bound = Int64(1) << 53
        #expect(AudioResampler.sampleIndex(.nan, rate: 48_000) == 0)
        #expect(AudioResampler.sampleIndex(.infinity, rate: 48_000) == bound)
        #expect(AudioResampler.sampleIndex(-.infinity, rate: 48_000) == -bound)
        #expect(AudioResampler.sampleIndex(1e300, rate: 48_000) == bound)
        #expect(AudioResampler.sampleIndex(-1e300, rate: 48_000) == -bound)
        #expect(AudioResampler.sampleIndex(1.5, rate: 48_000) == 72_000)
        // Sums and differences of two bounded indices (the FIFO's head, the trim end) cannot overflow.
        #expect(AudioResampler.sampleIndex(1e300, rate: 48_000) - AudioResampler.sampleIndex(-1e300, rate: 48_000) == 2 * bound)
    }

    @Test func projectedSizeOfAHugeWriteSaturates() {
        let (plan, source) = OutputSizeProjection.plan()
        let huge = [OutputSize.WrittenStream(bytes: .max, covered: 10)]
        #expect(OutputSize.projectedBytes(plan: plan, source: source, written: huge, fraction: 0.1) == .max)
    }

    @Test func masteringDisplayOfInfiniteOrNaNValuesIsWrittenNotTrapped() {
        let hostile = MasteringDisplay(red: [.nan, .infinity], green: [1e300, -1e300], blue: [0.15, 0.06], whitePoint: [0.3127, 0.329],
                                       minLuminance: -.infinity, maxLuminance: .nan)
        let value = hostile.x265Value
        #expect(value?.hasPrefix("G(\(Int.max),\(Int.min))B(7500,3000)R(0,\(Int.max))WP(15635,16450)L(0,\(Int.min))") == true, "\(String(describing: value))")
    }

    @Test func outputSizeOfAnAbsurdSampleAspectRatioIsRefusableNotATrap() {
        let size = VideoGeometry.outputSize(codedWidth: Int.max / 2, codedHeight: 1080, sampleAspect: Rational(4, 1), crop: nil, box: nil)
        #expect(size.width > VideoGeometry.maximumSide)  // the planner refuses it with the size
        let boxed = VideoGeometry.outputSize(codedWidth: Int.max / 2, codedHeight: 1080, sampleAspect: Rational(4, 1), crop: nil,
                                             box: SizeBox(1920, 1080))
        #expect(boxed.width == 1920 && boxed.height == 2)
    }

    @Test func stallOfInfiniteSecondsIsDescribed() {
        #expect(ExportError.stalled(path: "x.mov", seconds: .infinity).description.contains("no progress for \(Int.max) s"))
    }

    @Test func plotRangeOfNoValuesIsDefault() {
        let none = SeriesPlot.range([]), some = SeriesPlot.range([2, 4])
        #expect(none.0 == 0 && none.1 == 1)
        #expect(some.0 == 2 && some.1 == 4)
    }
}

/// A one-stream plan for the projection's saturation test.
enum OutputSizeProjection {
    static func plan() -> (ExportPlan, SourceInfo) {
        let source = SourceInfo(path: "in.mp4", duration: 10, size: 1, streams: [SourceStream(index: 0, kind: .video, codec: "h264", duration: 10, width: 64, height: 64, frameRate: 30)],
                                mainVideo: 0, mainAudio: nil)
        let decision = StreamDecision(index: 0, kind: .video, codec: "h264", action: .transcodeVideo(VideoPlan(width: 64, height: 64, settings: VideoSettings(codec: .h264))))
        return (ExportPlan(route: .transcode, container: .mp4, streams: [decision], timeline: PlannedTimeline(origin: 0, expectedDuration: 10)), source)
    }
}
