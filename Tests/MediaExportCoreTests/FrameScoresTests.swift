import Foundation
import Testing
@testable import MediaExportCore

/// The per-frame scores a measured encode keeps (`FrameScores`): their mean, 5th percentile, and how often to score.
@Suite struct FrameScoresTests {
    @Test("the mean is the mean of the frames' scores, the 5th percentile the nearest rank")
    func meanAndPercentile() {
        var scores = FrameScores(metric: .ssim, every: 1)
        #expect(scores.mean == nil && scores.p5 == nil)
        for k in 1...100 { scores.append(Double(k) / 100) }
        #expect(scores.count == 100)
        #expect(abs(scores.mean! - 0.505) < 1e-6)
        #expect(abs(scores.p5! - 0.05) < 1e-6)
        #expect(abs(scores.percentile(100)! - 1) < 1e-6)
        #expect(abs(scores.percentile(0)! - 0.01) < 1e-6)
    }

    @Test("one score: it is the mean and every percentile")
    func single() {
        var scores = FrameScores(metric: .psnr, every: 3)
        scores.append(42.5)
        #expect(scores.mean == 42.5 && scores.p5 == 42.5 && scores.every == 3)
    }

    @Test("every k-th frame: 1 up to 1080p 8-bit, more above; more again for a file of over 40 000 frames")
    func everyKth() {
        let delay = 48
        #expect(FrameScores.every(frameBytes: 640 * 360 * 3 / 2, delay: delay) == 1)
        #expect(FrameScores.every(frameBytes: 1920 * 1080 * 3 / 2, delay: delay) == 3)
        #expect(FrameScores.every(frameBytes: 3840 * 2160 * 3 / 2, delay: delay) == 9)
        #expect(FrameScores.every(frameBytes: 640 * 360 * 3 / 2, delay: delay, frames: 40_000) == 1)
        #expect(FrameScores.every(frameBytes: 640 * 360 * 3 / 2, delay: delay, frames: 100_000) == 3)
        #expect(FrameScores.every(frameBytes: 0, delay: 0) == 1)
        #expect(FrameScores(metric: .ssim, every: 0).every == 1)
    }

    @Test("the scores round-trip through JSON")
    func roundTrip() throws {
        var scores = FrameScores(metric: .ssim, every: 2)
        scores.append(0.75)
        scores.unpaired = 1
        let data = try JSONEncoder().encode(scores)
        #expect(try JSONDecoder().decode(FrameScores.self, from: data) == scores)
    }
}
