import Foundation
import Testing
@testable import MediaExportCore

/// The display-matrix port against FFmpeg 5.1's own results (libavutil 57.28.100's `av_display_rotation_set` and
/// `av_display_matrix_flip`, printed by a 10-line C program), and the crop's display → coded mapping.
@Suite struct GeometryTests {
    static let one: Int32 = 65536
    static let w: Int32 = 1 << 30

    /// (clockwise degrees, flip, matrix) — every quarter turn with and without each flip.
    static let ffmpegMatrices: [(Int, EditSidecar.Flip?, [Int32])] = [
        (0, nil, [one, 0, 0, 0, one, 0, 0, 0, w]),
        (0, .horizontal, [-one, 0, 0, 0, one, 0, 0, 0, w]),
        (0, .vertical, [one, 0, 0, 0, -one, 0, 0, 0, w]),
        (90, nil, [0, one, 0, -one, 0, 0, 0, 0, w]),
        (90, .horizontal, [0, one, 0, one, 0, 0, 0, 0, w]),
        (90, .vertical, [0, -one, 0, -one, 0, 0, 0, 0, w]),
        (180, nil, [-one, 0, 0, 0, -one, 0, 0, 0, w]),
        (180, .horizontal, [one, 0, 0, 0, -one, 0, 0, 0, w]),
        (180, .vertical, [-one, 0, 0, 0, one, 0, 0, 0, w]),
        (270, nil, [0, -one, 0, one, 0, 0, 0, 0, w]),
        (270, .horizontal, [0, -one, 0, -one, 0, 0, 0, 0, w]),
        (270, .vertical, [0, one, 0, one, 0, 0, 0, 0, w]),
    ]

    @Test(arguments: ffmpegMatrices)
    func quarterTurnsMatchFFmpeg(_ degrees: Int, _ flip: EditSidecar.Flip?, _ expected: [Int32]) {
        var m = DisplayMatrix.rotation(degrees: Double(degrees))
        if let flip { m = DisplayMatrix.flipped(m, horizontal: flip == .horizontal, vertical: flip == .vertical) }
        #expect(m == expected)
    }

    /// Off-axis angles show the truncating `(int32_t)` cast: sin 30° × 65536 is 32767.99…, so 32767, not 32768.
    @Test(arguments: [
        (45.0, [Int32(46340), 46340, 0, -46340, 46340, 0, 0, 0, w]),
        (30.0, [Int32(56755), 32767, 0, -32767, 56755, 0, 0, 0, w]),
        (-90.0, [Int32(0), -65536, 0, 65536, 0, 0, 0, 0, w]),
        (123.4, [Int32(-36076), 54712, 0, -54712, -36076, 0, 0, 0, w]),
    ])
    func arbitraryAnglesTruncateLikeC(_ degrees: Double, _ expected: [Int32]) {
        #expect(DisplayMatrix.rotation(degrees: degrees) == expected)
    }

    @Test func flipWithoutAnAxisIsTheSameMatrixAndNeverTraps() {
        let m = DisplayMatrix.rotation(degrees: 90)
        #expect(DisplayMatrix.flipped(m, horizontal: false, vertical: false) == m)
        #expect(DisplayMatrix.flipped([Int32.min, 0, 0, 0, 0, 0, 0, 0, 1], horizontal: true, vertical: false)[0] == Int32.min)
    }

    /// The source's rotation plus the edit's, then the flip; nil when the edit neither rotates nor flips.
    @Test(arguments: [
        (0, EditSidecar(rotate: 90), Optional(ffmpegMatrices[3].2)),
        (90, EditSidecar(rotate: 90), Optional(ffmpegMatrices[6].2)),
        (90, EditSidecar(rotate: -90), Optional(ffmpegMatrices[0].2)),
        (270, EditSidecar(rotate: 450), Optional(ffmpegMatrices[0].2)),
        (90, EditSidecar(flip: .horizontal), Optional(ffmpegMatrices[4].2)),
        (180, EditSidecar(rotate: 90, flip: .vertical), Optional(ffmpegMatrices[11].2)),
        (90, EditSidecar(rotate: 360), nil),
        (90, EditSidecar(mute: true), nil),
    ])
    func composedMatrix(_ sourceClockwise: Int, _ edits: EditSidecar, _ expected: [Int32]?) {
        #expect(VideoGeometry.displayMatrix(sourceClockwise: sourceClockwise, edits: edits) == expected)
    }

    /// A 640x360 crop at (100, 200) of the displayed picture, on a 1920x1080 coded picture turned by the source.
    @Test(arguments: [
        (0, PixelRect(left: 100, top: 200, width: 640, height: 360)),
        (90, PixelRect(left: 200, top: 340, width: 360, height: 640)),
        (180, PixelRect(left: 1180, top: 520, width: 640, height: 360)),
        (270, PixelRect(left: 1360, top: 100, width: 360, height: 640)),
    ])
    func cropInCodedPixels(_ sourceClockwise: Int, _ expected: PixelRect) {
        let crop = EditSidecar.Crop(x: 100, y: 200, width: 640, height: 360)
        #expect(VideoGeometry.codedRect(displayed: crop, codedWidth: 1920, codedHeight: 1080, sourceClockwise: sourceClockwise) == expected)
    }

    /// What `mediaexport probe` calls the displayed size: SAR on the width, sides swapped for a quarter turn.
    @Test(arguments: [
        (SourceStream.h264(0, 1920, 1080), PixelSize(width: 1920, height: 1080)),
        (SourceStream.h264(0, 1920, 1080, rotation: 90), PixelSize(width: 1080, height: 1920)),
        (SourceStream.h264(0, 1920, 1080, rotation: 180), PixelSize(width: 1920, height: 1080)),
        (SourceStream.h264(0, 1440, 1080, sar: Rational(4, 3)), PixelSize(width: 1920, height: 1080)),
        (SourceStream.h264(0, 1440, 1080, rotation: 270, sar: Rational(4, 3)), PixelSize(width: 1080, height: 1920)),
        (SourceStream.h264(0, 720, 480, sar: Rational(0, 1)), PixelSize(width: 720, height: 480)),
    ])
    func displayedSize(_ stream: SourceStream, _ expected: PixelSize) {
        #expect(stream.displaySize == expected)
    }
}

@Suite struct ContainerTests {
    @Test(arguments: [("mp4", Container.mp4), ("MOV", .mov), ("M4v", .m4v), ("m4a", .m4a), ("mkv", .mkv)])
    func fromExtension(_ ext: String, _ expected: Container) {
        #expect(Container(extension: ext) == expected)
    }

    @Test func unknownExtensionsHaveNoContainer() {
        #expect(Container(extension: "avi") == nil)
        #expect(Container(extension: "") == nil)
    }

    @Test func muxersAndFaststart() {
        #expect(Container.allCases.map(\.muxerName) == ["mp4", "mov", "mp4", "ipod", "matroska", "webm"])
        #expect(Container.allCases.filter(\.isQuickTimeFamily) == [.mp4, .mov, .m4v, .m4a])
        #expect(Preset.outputExtensions == Container.allCases.map(\.rawValue))
    }

    @Test func whatWeEncodeFitsWhere() {
        #expect(Container.allCases.filter { $0.holds(VideoCodec.h264) } == [.mp4, .mov, .m4v, .mkv])
        #expect(Container.allCases.filter { $0.holds(VideoCodec.hevc) } == [.mp4, .mov, .m4v, .mkv])
        #expect(Container.allCases.filter { $0.holds(AudioCodec.aac) } == [.mp4, .mov, .m4v, .m4a, .mkv])
        #expect(Container.allCases.filter { $0.holds(AudioCodec.opus) } == [.mp4, .m4v, .mkv, .webm])
    }
}
