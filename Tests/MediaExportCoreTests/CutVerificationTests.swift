import Testing
@testable import MediaExportCore

/// The frame check counts what players show: samples an edit list hides (a copy's lead-in, a source's hidden
/// samples) are neither expected nor measured; a range's predicted frames catch a short delivery.
@Suite struct CutVerificationTests {
    static let label = "stream #0 video"

    static func video(expected: Int?, estimated: Bool = false) -> StreamDecision {
        var d = StreamDecision(index: 0, kind: .video, codec: "h264", action: .copy(displayMatrix: nil), width: 1280, height: 720)
        d.expectedFrames = expected
        d.framesEstimated = estimated
        return d
    }

    static func out(stored: Int, shown: Int?) -> OutputFacts.Stream {
        var s = OutputFacts.Stream(kind: .video, codec: "h264")
        s.frameCount = stored
        s.shownFrames = shown
        return s
    }

    @Test func aCopyCutsLeadInIsNotCounted() {
        // bf.mp4 1-3 s: 91 samples stored from the keyframe at 0 s, 61 shown from 1 s (the last a reference past the end).
        let planned = OutputVerifier.frameCountCheck(label: Self.label, decision: Self.video(expected: 60), out: Self.out(stored: 91, shown: 61),
                                                     delivered: DeliveredStream(packets: 91, duration: 2.03, shown: 61))
        #expect(planned.outcome == .passed, "\(planned)")
        // The same without a count from the source: as written, the shown packets against the shown frames.
        let written = OutputVerifier.frameCountCheck(label: Self.label, decision: Self.video(expected: nil), out: Self.out(stored: 91, shown: 61),
                                                     delivered: DeliveredStream(packets: 91, duration: 2.03, shown: 61))
        #expect(written.outcome == .passed, "\(written)")
        // Before: every sample stored was counted, and a correct cut failed.
        let stored = OutputVerifier.frameCountCheck(label: Self.label, decision: Self.video(expected: 60), out: Self.out(stored: 91, shown: nil),
                                                    delivered: DeliveredStream(packets: 91, duration: 2.03))
        #expect(stored.outcome == .failed)
    }

    @Test func aPredictedRangeCatchesAShortDelivery() {
        // ps.mpg 1-3 s at 25 fps: 50 predicted; 39 came out when the seek lost a GOP.
        func check(_ measured: Int) -> Verification.Outcome {
            OutputVerifier.frameCountCheck(label: Self.label, decision: Self.video(expected: 50, estimated: true),
                                           out: Self.out(stored: measured, shown: measured),
                                           delivered: DeliveredStream(packets: measured, duration: Double(measured) / 25)).outcome
        }
        #expect(check(50) == .passed)
        #expect(check(48) == .passed)
        #expect(check(39) == .failed)
    }
}
