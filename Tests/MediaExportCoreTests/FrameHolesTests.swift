import Testing
@testable import MediaExportCore

/// Holes in a video stream's timestamps become frames lost only at a constant frame rate (issue 29, item 4).
@Suite struct FrameHolesTests {
    /// The steps of frames at `times` (seconds), measured at `rate` fps.
    static func measure(_ times: [Double], rate: Double) -> FrameHoles {
        var holes = FrameHoles(frameDuration: 1 / rate)
        for (a, b) in zip(times, times.dropFirst()) { holes.note(from: a, to: b) }
        return holes
    }

    @Test("25 fps with one second gone at 2 s: 25 frames lost at 2.00 s")
    func oneHoleAtAConstantRate() {
        let times = (0..<150).filter { !(50..<75).contains($0) }.map { Double($0) / 25 }
        let holes = Self.measure(times, rate: 25)
        #expect(holes.isConstantRate)
        let lost = holes.lost(stream: 0)
        #expect(lost.count == 1 && lost.first?.frames == 25)
        #expect(abs((lost.first?.at ?? 0) - 2) < 1e-9 && abs((lost.first?.seconds ?? 0) - 1) < 1e-9)
    }

    @Test("Matroska's millisecond timestamps at 29.97 fps step 33 and 34 ms: regular, no hole")
    func millisecondRounding() {
        let times = (0..<300).map { (Double($0) * 1001 / 30000 * 1000).rounded() / 1000 }
        let holes = Self.measure(times, rate: 30000.0 / 1001)
        #expect(holes.isConstantRate && holes.holeCount == 0 && holes.lost(stream: 0).isEmpty)
    }

    @Test("A phone halving its rate in low light (many one-frame holes) is variable: nothing lost")
    func phoneLowLightIsVariable() {
        var times: [Double] = []
        var t = 0.0
        for n in 0..<300 { times.append(t); t += (100..<200).contains(n) ? 2.0 / 30 : 1.0 / 30 }
        let holes = Self.measure(times, rate: 30)
        #expect(!holes.isConstantRate)
        #expect(holes.lost(stream: 0).isEmpty)
    }

    @Test("A phone's jitter of more than a quarter frame is variable: its one long step is no loss")
    func phoneJitterIsVariable() {
        var times: [Double] = [0]
        for n in 1..<300 { times.append(times[n - 1] + (n % 7 == 0 ? 0.045 : n % 5 == 0 ? 0.022 : 1.0 / 30) + (n == 150 ? 0.1 : 0)) }
        let holes = Self.measure(times, rate: 30)
        #expect(!holes.isConstantRate && holes.lost(stream: 0).isEmpty)
    }

    @Test("Two holes in a short clip are counted; the warning names both places")
    func twoHolesNamed() {
        let times = (0..<75).filter { $0 != 20 && !(40..<43).contains($0) }.map { Double($0) / 25 }
        let lost = Self.measure(times, rate: 25).lost(stream: 0)
        #expect(lost.map(\.frames) == [1, 3])
        #expect(Accounting.lostFrameWarnings(lost) == [
            "video stream #0: 4 frames missing in 2 places (at 0.80 s, 1.60 s) (0.16 s where its timestamps jump ahead at a constant frame rate): packets are missing",
        ])
    }

    @Test("A zeroed stretch leaves a few holes one after the other: one stretch, every frame in it lost (issue 43)")
    func zeroedStretchIsOneStretch() {
        // Matroska with 128 kB zeroed at 40 %: frames at 3.80, 3.88, 3.96, then 6.04 s at 25 fps.
        let times = (0..<250).filter { !(96..<151).contains($0) || $0 == 97 || $0 == 99 }.map { Double($0) / 25 }
        let holes = Self.measure(times, rate: 25)
        #expect(holes.isConstantRate && holes.stretches == 1)
        #expect(holes.lost(stream: 0).reduce(0) { $0 + $1.frames } == 53)
    }

    @Test("A clean `-t 2 -c copy` cut ends on a reference frame whose B-frames fell outside: no frame lost (issue 43)")
    func cutsLooseEndIsNoLoss() {
        let times = (0...50).map { Double($0) / 25 } + [2.16]
        var holes = FrameHoles(frameDuration: 1.0 / 25, reorderDepth: 2)
        for (a, b) in zip(times, times.dropFirst()) { holes.note(from: a, to: b) }
        #expect(holes.isConstantRate && holes.lost(stream: 0).isEmpty)
        // Without reordering the same end is frames lost; so is a hole with more frames after it than the depth.
        #expect(Self.measure(times, rate: 25).lost(stream: 0).first?.frames == 3)
        var later = FrameHoles(frameDuration: 1.0 / 25, reorderDepth: 2)
        for (a, b) in zip(times + [2.20, 2.24, 2.28], (times + [2.20, 2.24, 2.28]).dropFirst()) { later.note(from: a, to: b) }
        #expect(later.lost(stream: 0).first?.frames == 3)
    }

    @Test("An MPEG-TS that is not a whole number of its packets ends inside one: cut mid-stream")
    func transportStreamCutMidPacket() {
        #expect(SourceInfo(path: "a.ts", formatName: "mpegts", size: 188 * 1000 + 77, streams: []).endsInsidePacket)
        #expect(!SourceInfo(path: "a.ts", formatName: "mpegts", size: 188 * 1000, streams: []).endsInsidePacket)
        #expect(!SourceInfo(path: "a.m2ts", formatName: "mpegts", size: 192 * 999, streams: []).endsInsidePacket)
        #expect(!SourceInfo(path: "a.mp4", formatName: "mov,mp4,m4a,3gp,3g2,mj2", size: 188 * 1000 + 77, streams: []).endsInsidePacket)
    }

    @Test("No rate known: nothing is a hole")
    func unknownRate() {
        var holes = FrameHoles(frameDuration: 0)
        holes.note(from: 0, to: 5)
        #expect(holes.steps == 0 && holes.lost(stream: 0).isEmpty)
    }

    @Test("A short written span passes by the frames missing in it, no further")
    func verifierAllowsMissingFrames() {
        let source = SourceStream(index: 0, kind: .video, codec: "h264", frameRate: 30)
        let decision = StreamDecision(index: 0, kind: .video, codec: "h264", action: .copy(displayMatrix: nil))
        func outcome(measured: Double, missing: Double) -> Verification.Outcome {
            var out = OutputFacts.Stream(kind: .video, codec: "h264")
            out.duration = measured
            return OutputVerifier.durationCheck(label: "v", decision: decision, out: out,
                                                delivered: DeliveredStream(packets: 216, duration: 7.5, missing: missing), source: source).outcome
        }
        #expect(outcome(measured: 7.2, missing: 0.3) == .passed)
        #expect(outcome(measured: 7.2, missing: 0) == .failed)
        #expect(outcome(measured: 7.0, missing: 0.3) == .failed)
        #expect(outcome(measured: 7.9, missing: 0.3) == .failed)
    }
}

/// A broken frame rate is bounded by the stream's length, and AVI's holes are its writer's (issue 29, item 4).
@Suite struct FrameBoundTests {
    static func source(streamSeconds: Double?, frames: Int?, file: Double? = nil) -> SourceInfo {
        var stream = SourceStream(index: 0, kind: .video, codec: "h264")
        stream.duration = streamSeconds
        stream.frameCount = frames
        return SourceInfo(path: "x.mp4", formatName: "mov,mp4,m4a,3gp,3g2,mj2", duration: file, streams: [stream])
    }

    @Test("One frame of 2^31 ticks at 12800 Hz in a 0.04 s stream lasts 0.04 s; a sane frame is left alone")
    func brokenRateIsBounded() {
        let huge = Double(Int32.max) / 12800
        #expect(Self.source(streamSeconds: 0.04, frames: 1).boundedFrame(huge, stream: 0) == 0.04)
        #expect(Self.source(streamSeconds: nil, frames: nil, file: 3).boundedFrame(huge, stream: 0) == 3)
        #expect(Self.source(streamSeconds: 0.04, frames: 1).boundedFrame(0.04, stream: 0) == nil)
        #expect(Self.source(streamSeconds: 0.5, frames: 1).boundedFrame(2, stream: 0) == nil, "a still shown 2 s in a 0.5 s file is within ten times")
        #expect(Self.source(streamSeconds: nil, frames: nil).boundedFrame(huge, stream: 0) == nil, "nothing bounds it")
    }

    @Test("The duration check of a one-frame stream is within a frame of 1/24 s, not 46 hours")
    func verifierToleranceIsBounded() {
        let source = SourceStream(index: 0, kind: .video, codec: "h264", frameRate: 12800 / Double(Int32.max))
        var decision = StreamDecision(index: 0, kind: .video, codec: "h264", action: .copy(displayMatrix: nil))
        decision.expectedDuration = 0.04
        decision.durationExact = true
        var out = OutputFacts.Stream(kind: .video, codec: "h264")
        out.duration = 167_772.16
        out.frameDuration = 167_772.16
        let check = OutputVerifier.durationCheck(label: "v", decision: decision, out: out, delivered: DeliveredStream(packets: 1, duration: 0.04),
                                                 source: source)
        #expect(check.outcome == .failed, "\(check.expected)")
        out.duration = 0.04
        #expect(OutputVerifier.durationCheck(label: "v", decision: decision, out: out, delivered: DeliveredStream(packets: 1, duration: 0.04),
                                             source: source).outcome == .passed)
    }

    @Test("Holes count in MKV, MP4 and MPEG-TS; not in AVI, whose header counts its frames")
    func aviHolesAreItsWriters() {
        #expect(!SourceInfo(path: "x.avi", formatName: "avi", streams: []).countsTimestampHoles)
        #expect(SourceInfo(path: "x.mkv", formatName: "matroska,webm", streams: []).countsTimestampHoles)
        #expect(SourceInfo(path: "x.ts", formatName: "mpegts", streams: []).countsTimestampHoles)
    }
}
