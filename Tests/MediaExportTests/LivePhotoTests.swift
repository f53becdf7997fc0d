import Foundation
import Testing
@testable import MediaExport
@testable import MediaExportCore

/// A Live Photo movie keeps Apple's QuickTime keys — the pairing identifier above all — through every route.
@Suite struct LivePhotoTests {
    static let identifier = "1A2B3C4D-0000-4000-8000-123456789ABC"

    /// A movie tagged as an iPhone tags a Live Photo's: `mdta` keys, a location with an altitude.
    static func liveMovie(in dir: URL) throws -> String {
        let path = dir.appendingPathComponent("IMG_0042.MOV").path
        try TestSupport.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30:duration=1", "-c:v", "libx264", "-preset", "ultrafast",
                                "-movflags", "use_metadata_tags", "-metadata", "com.apple.quicktime.content.identifier=\(identifier)",
                                "-metadata", "com.apple.quicktime.make=Apple", "-metadata", "com.apple.quicktime.model=iPhone 15",
                                "-metadata", "com.apple.quicktime.creationdate=2024-05-01T12:34:56+0200",
                                "-metadata", "com.apple.quicktime.location.ISO6709=+48.8584+002.2945+035.000/", path])
        return path
    }

    @Test(arguments: [("1280x720", "mp4"), ("passthrough", "mov"), ("hevc-highest", "mov")])
    func theContentIdentifierAndCaptureKeysAreKept(preset: String, ext: String) throws {
        let dir = TestSupport.tempDir("live\(preset)")
        defer { TestSupport.cleanup(dir) }
        let source = try Self.liveMovie(in: dir)
        let out = dir.appendingPathComponent("out.\(ext)").path
        let completed = try TestSupport.export(source, to: out, preset: preset)
        #expect(completed.fallbacks.isEmpty, "\(completed.fallbacks)")
        let tags = try FFprobe(out).tags
        #expect(tags["com.apple.quicktime.content.identifier"] == Self.identifier)
        #expect(tags["com.apple.quicktime.make"] == "Apple" && tags["com.apple.quicktime.model"] == "iPhone 15")
        #expect(tags["com.apple.quicktime.creationdate"] == "2024-05-01T12:34:56+0200")
        #expect(tags["com.apple.quicktime.location.ISO6709"] == "+48.8584+002.2945+035.000/")
        // The verifier read it back too; the altitude's rewriting by the muxer is the same place.
        #expect(completed.verification?.checks.contains { $0.name == "com.apple.quicktime.content.identifier" && $0.outcome == .passed } == true)
        #expect(completed.verification?.checks.contains { $0.name == "location" && $0.outcome == .passed } == true)
    }

    @Test func locationsCompareAsNumbers() {
        #expect(OutputVerifier.sameLocation("+48.8584+002.2945+035.000/", "+48.8584+002.2945+35.000000/"))
        #expect(!OutputVerifier.sameLocation("+48.8584+002.2945/", "+48.8585+002.2945/"))
        #expect(!OutputVerifier.sameLocation("+48.8584+002.2945/", "somewhere"))
        #expect(OutputVerifier.iso6709Numbers("-33.8568+151.2153/") == [-33.8568, 151.2153])
    }
}
