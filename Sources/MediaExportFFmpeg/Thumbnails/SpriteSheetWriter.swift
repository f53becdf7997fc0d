internal import CFFmpeg
import Foundation
import MediaExportCore

/// The sprite sheet being filled, one at a time: tiles placed in order (upright, scaled with `RGBPicture`), a sheet
/// encoded as JPEG and written when the next tile belongs to the next sheet. A tile no picture reached (a damaged
/// keyframe) shows the tile before it.
final class SpriteSheetWriter {
    let layout: SpriteLayout
    let folder: String, path: String
    /// Clockwise turn as displayed, and the colour for HDR tone mapping.
    let clockwise: Int, color: VideoColor?
    let stream: UnsafeMutablePointer<AVStream>
    /// The sheets written so far, by name, with their sizes.
    private(set) var written: [String: (width: Int, height: Int)] = [:]
    private var sheet: RGBPicture?, sheetIndex = -1
    private var lastTile: RGBPicture?, placed = 0

    /// Prepares `folder/sprites`.
    init(layout: SpriteLayout, folder: String, stream: UnsafeMutablePointer<AVStream>, path: String) throws {
        self.layout = layout; self.folder = folder; self.path = path; self.stream = stream
        clockwise = StreamFacts(stream).clockwise
        var color = ColorProbe.color(stream)
        if color?.isHDR == true { ColorProbe.addFirstFrameMetadata(to: &color!, path: path, streamIndex: Int(stream.pointee.index)) }
        self.color = color
        let sprites = URL(fileURLWithPath: folder).appendingPathComponent("sprites")
        do {
            try FileManager.default.createDirectory(at: sprites, withIntermediateDirectories: true)
        } catch {
            throw ExportError.outputUnwritable(path: sprites.path, reason: error.localizedDescription)
        }
    }

    /// Places `frame` on `tiles` (tiles before them that got no picture show the previous one).
    func place(_ frame: Frame, tiles: Range<Int>) throws {
        guard !tiles.isEmpty, tiles.upperBound > placed else { return }
        let tile = try picture(frame)
        while placed < tiles.lowerBound { try paste(lastTile ?? tile, at: placed); placed += 1 }
        while placed < tiles.upperBound { try paste(tile, at: placed); placed += 1 }
        lastTile = tile
    }

    /// Fills the tiles left with the last picture and writes the last sheet; throws when no picture came at all.
    func finish() throws {
        guard let lastTile else {
            throw ExportError.noUsableStreams(path: path, reason: "no picture could be decoded for the scrub previews")
        }
        while placed < layout.tileCount { try paste(lastTile, at: placed); placed += 1 }
        try flush()
    }

    /// `frame` upright at the tile's size: tone-mapped when HDR, scaled in coded orientation, then turned.
    private func picture(_ frame: Frame) throws -> RGBPicture {
        var frame = frame
        if let color, color.isHDR { frame = try ThumbnailRenderer.toneMapped(frame, color: color, stream: stream, path: path) }
        let f = frame.pointer
        let quarter = Rotation.isQuarterTurn(clockwise)
        let crop = PixelRect(left: 0, top: 0, width: Int(f.pointee.width), height: Int(f.pointee.height))
        return try RGBPicture.scale(frame: frame, crop: crop, width: quarter ? layout.tileHeight : layout.tileWidth,
                                    height: quarter ? layout.tileWidth : layout.tileHeight, path: path,
                                    flags: RGBPicture.tileFlags).rotated(clockwise: clockwise)
    }

    /// Copies `tile` into its place, starting the next sheet (and writing the one before) when it is on another.
    private func paste(_ tile: RGBPicture, at index: Int) throws {
        let p = layout.position(index)
        if p.sheet != sheetIndex {
            try flush()
            let s = layout.sheets[p.sheet]
            sheet = RGBPicture(width: s.width, height: s.height, pixels: [UInt8](repeating: 0, count: s.width * s.height * 3))
            sheetIndex = p.sheet
        }
        guard var s = sheet, tile.width == layout.tileWidth, tile.height == layout.tileHeight else { return }
        sheet = nil  // one reference: the copy below writes in place
        let row = tile.width * 3
        s.pixels.withUnsafeMutableBufferPointer { dst in
            tile.pixels.withUnsafeBufferPointer { src in
                for y in 0..<tile.height {
                    memcpy(dst.baseAddress! + ((p.y + y) * s.width + p.x) * 3, src.baseAddress! + y * row, row)
                }
            }
        }
        sheet = s
    }

    /// Encodes the sheet in memory as JPEG and writes it (nothing when none is open).
    private func flush() throws {
        guard let s = sheet else { return }
        let name = layout.sheets[sheetIndex].name
        let target = URL(fileURLWithPath: folder).appendingPathComponent(name)
        let bytes = try s.encode(png: false, path: target.path)
        do {
            try bytes.write(to: target)
        } catch {
            throw ExportError.outputUnwritable(path: target.path, reason: error.localizedDescription)
        }
        written[name] = (s.width, s.height)
        sheet = nil
    }
}
