import Foundation
import MediaExportCore
import MediaExportFFmpeg

/// The outcome of choosing a version: what to read and which edits to apply.
struct VersionSelection {
    var report: VersionReport
    var edits: EditSidecar?
}

/// Chooses the resource and edits for a requested version.
enum VersionResolver {
    static func select(input: String, version: AssetVersion, editsPath: String?, requireCurrent: Bool) throws -> VersionSelection {
        let asset = try Asset.discover(from: input)
        let name = { (p: String) in (p as NSString).lastPathComponent }
        guard let original = asset.original ?? asset.renderedEdit else {
            if let ext = Asset.stillImageExtension(input) {
                throw ExportError.notMedia(path: input, reason: "is a still image (\(ext)); mediaexport exports video and audio")
            }
            throw ExportError.inputUnreadable(path: input, reason: "no video or audio resource found for asset \(asset.baseName)")
        }

        if version == .original {
            guard let o = asset.original else {
                throw ExportError.versionUnavailable(path: input, version: .original,
                                                     reason: "only the rendered edit \(name(original.path)) exists; the original is not in \(asset.directory)")
            }
            var reason = "original requested"
            if editsPath != nil { reason += "; --edits not applied to the original" }
            return VersionSelection(report: VersionReport(requested: .original, delivered: .original, resource: o.path, resourceKind: o.kind,
                                                          sidecar: nil, adjustmentData: nil, reason: reason), edits: nil)
        }

        // current: an explicit sidecar wins, then a rendered edit, then a discovered sidecar.
        if let editsPath {
            guard let o = asset.original else {
                throw ExportError.versionUnavailable(path: input, version: .current, reason: "no original to apply \(name(editsPath)) to")
            }
            let edits = try EditSidecar.load(path: editsPath)
            return VersionSelection(report: VersionReport(requested: .current, delivered: .current, resource: o.path, resourceKind: o.kind,
                                                          sidecar: editsPath, adjustmentData: nil,
                                                          reason: "edits from \(name(editsPath)) applied to the original"), edits: edits)
        }
        if let edit = asset.renderedEdit {
            var reason = "rendered edit \(name(edit.path))"
            if let s = asset.editSidecar { reason += "; \(name(s.path)) not applied (the rendered edit already holds the edits)" }
            return VersionSelection(report: VersionReport(requested: .current, delivered: .current, resource: edit.path, resourceKind: .renderedEdit,
                                                          sidecar: nil, adjustmentData: nil, reason: reason), edits: nil)
        }
        if let sidecar = asset.editSidecar {
            let edits = try EditSidecar.load(path: sidecar.path)
            return VersionSelection(report: VersionReport(requested: .current, delivered: .current, resource: original.path, resourceKind: original.kind,
                                                          sidecar: sidecar.path, adjustmentData: nil,
                                                          reason: "edits from \(name(sidecar.path)) applied to the original"), edits: edits)
        }
        // The .AAE is an upload like the rest, read only here where it decides the version: an unreadable or hostile
        // one fails this asset's current version alone, never its original, a rendered edit or a sidecar's edits.
        if let aae = asset.adjustmentData {
            let adjustment = try AdjustmentInfo.load(path: aae.path)
            let what = [adjustment.formatIdentifier, adjustment.formatVersion.map { "version \($0)" }].compactMap { $0 }.joined(separator: " ")
            let reason = "\(name(aae.path)) holds Apple edits (\(what)) that cannot be rendered here and there is no rendered edit"
            if requireCurrent { throw ExportError.versionUnavailable(path: input, version: .current, reason: reason) }
            return VersionSelection(report: VersionReport(requested: .current, delivered: .original, resource: original.path, resourceKind: original.kind,
                                                          sidecar: nil, adjustmentData: adjustment,
                                                          reason: reason + "; delivering the original"), edits: nil)
        }
        return VersionSelection(report: VersionReport(requested: .current, delivered: .current, resource: original.path, resourceKind: original.kind,
                                                      sidecar: nil, adjustmentData: nil,
                                                      reason: "no edits: the current version is the original"), edits: nil)
    }
}
