import Foundation
import MediaExportCore
import MediaExportFFmpeg

/// The outcome of choosing a version: what to read and which edits to apply.
struct VersionSelection {
    var report: VersionReport
    var edits: EditSidecar?
    /// The original's path when the resource delivered is the asset's rendered edit (its capture metadata —
    /// creation time, location, make/model, Live Photo identifier — are taken from there when the edit lacks them).
    var metadataSource: String? = nil
    /// The file the edits come from (the JSON sidecar, or the `.AAE` rendered): named in their errors and notes.
    var editsFile: String? = nil

    /// What an export of this version asks the planner for its first route (`ExportPlanner.start`): the session and
    /// the batch's plan ask alike.
    func startQuestion(_ request: ExportRequest, source: SourceInfo) -> StartQuestion {
        StartQuestion(request: request, source: source, resourceExtension: PathName.pathExtension(report.resource), edits: edits,
                      editsName: editsFile.map(PathName.lastComponent))
    }
}

/// Chooses the resource and edits for a requested version.
///
/// The resource is always one of the asset of the file given (`Asset.discover`): that file itself, or for the
/// current version its rendered edit, or for the original version the original of a rendered edit given — never
/// another video that merely shares its base name. The report's `reason` says which, and carries the asset's
/// notes (a rendered edit or sidecar that could be several assets' and was given to none).
enum VersionResolver {
    /// Chooses within the asset of `input`, or `asset` when it is already discovered (the batch planner groups whole
    /// folders at once).
    static func select(asset: Asset? = nil, input: String, version: AssetVersion, editsPath: String?, requireCurrent: Bool) throws -> VersionSelection {
        let asset = try asset ?? Asset.discover(from: input)
        let name = { (p: String) in PathName.lastComponent(p) }
        let choice = Choice(asset: asset, requested: version, told: asset.notes.map { "; " + $0 }.joined())
        guard let original = asset.original ?? asset.renderedEdit else {
            if let ext = Asset.stillImageExtension(input) {
                throw ExportError.notMedia(path: input, reason: "is a still image (\(ext)); mediaexport exports video and audio")
            }
            throw ExportError.inputUnreadable(path: input, reason: "no video or audio resource found for asset \(asset.baseName)\(choice.told)")
        }

        if version == .original {
            guard let o = asset.original else {
                throw ExportError.versionUnavailable(path: input, version: .original,
                                                     reason: "only the rendered edit \(name(original.path)) exists; the original is not in \(asset.directory)")
            }
            var reason = "original requested"
            if editsPath != nil { reason += "; --edits not applied to the original" }
            return choice.selection(.original, o, reason: reason)
        }

        // current: an explicit sidecar wins, then a rendered edit, then a discovered sidecar.
        if let editsPath {
            guard let o = asset.original else {
                throw ExportError.versionUnavailable(path: input, version: .current, reason: "no original to apply \(name(editsPath)) to")
            }
            let edits = try EditSidecar.load(path: editsPath)
            return choice.selection(.current, o, sidecar: editsPath, reason: "edits from \(name(editsPath)) applied to the original", edits: edits)
        }
        if let edit = asset.renderedEdit {
            var reason = "rendered edit \(name(edit.path))"
            if let o = asset.original {
                reason += " of \(name(o.path)), delivered as its current version (capture metadata from the original)"
            } else {
                reason += "; its original is not in the folder"
            }
            if let s = asset.editSidecar { reason += "; \(name(s.path)) not applied (the rendered edit already holds the edits)" }
            return choice.selection(.current, edit, reason: reason)
        }
        if let sidecar = asset.editSidecar {
            let edits = try EditSidecar.load(path: sidecar.path)
            return choice.selection(.current, original, sidecar: sidecar.path, reason: "edits from \(name(sidecar.path)) applied to the original", edits: edits)
        }
        if let aae = asset.adjustmentData {
            return try choice.appleEdits(aae, original: original, input: input, requireCurrent: requireCurrent)
        }
        return choice.selection(.current, original, reason: "no edits: the current version is the original")
    }

    /// A version chosen within one asset for one request.
    private struct Choice {
        let asset: Asset
        let requested: AssetVersion
        /// The asset's notes, each after `; `: told in every reason.
        let told: String

        func selection(_ delivered: AssetVersion, _ resource: Resource, sidecar: String? = nil, adjustment: AdjustmentInfo? = nil,
                       reason: String, edits: EditSidecar? = nil) -> VersionSelection {
            let fromEdit = resource.kind == .renderedEdit
            return VersionSelection(report: VersionReport(requested: requested, delivered: delivered, resource: resource.path,
                                                          resourceKind: resource.kind, sidecar: sidecar, adjustmentData: adjustment,
                                                          reason: reason + told),
                                    edits: edits, metadataSource: fromEdit ? asset.original?.path : nil,
                                    editsFile: edits == nil ? nil : sidecar ?? asset.adjustmentData?.path)
        }

        /// The current version from Apple's `.AAE`: its edits rendered from the original, or the original itself.
        /// The .AAE is an upload like the rest, read only here where it decides the version: an unreadable or hostile
        /// one fails this asset's current version alone, never its original, a rendered edit or a sidecar's edits.
        func appleEdits(_ aae: Resource, original: Resource, input: String, requireCurrent: Bool) throws -> VersionSelection {
            let name = PathName.lastComponent(aae.path)
            let adjustment = try AdjustmentInfo.load(path: aae.path)
            let rendering = AppleEditRendering(adjustment)
            if rendering.isRenderable, let edits = rendering.edits {
                var chosen = selection(.current, original, adjustment: adjustment,
                                       reason: "Apple edits from \(name) (\(rendering.applied.joined(separator: ", "))) rendered from the original",
                                       edits: edits)
                chosen.report.appliedAdjustments = rendering.applied
                return chosen
            }
            if rendering.unrenderable.isEmpty {
                return selection(.current, original, adjustment: adjustment,
                                 reason: "\(name) changes nothing in the movie (poster frame or disabled adjustments): the current version is the original")
            }
            let what = [adjustment.formatIdentifier, adjustment.formatVersion.map { "version \($0)" }].compactMap { $0 }.joined(separator: " ")
            let reason = "\(name) holds Apple edits (\(what)) that cannot be rendered here: \(rendering.unrenderable.joined(separator: "; ")); there is no rendered edit"
            if requireCurrent { throw ExportError.versionUnavailable(path: input, version: .current, reason: reason) }
            return selection(.original, original, adjustment: adjustment, reason: reason + "; delivering the original")
        }
    }
}
