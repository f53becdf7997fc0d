import Foundation


/// Which version of an asset to export (like `PHVideoRequestOptions.version`).
public enum AssetVersion: String, Codable, Sendable, CaseIterable {
    /// The user's edits applied: the rendered edit, else the original with the JSON sidecar applied, else the original.
    case current
    /// The untouched original resource.
    case original
}

/// Which version was asked for, which was delivered, from which resource, and why — in every `started` and
/// `completed` event and in the human summary.
public struct VersionReport: Codable, Sendable, Equatable {
    /// The version the request asked for.
    public var requested: AssetVersion
    /// The version the output holds.
    public var delivered: AssetVersion
    /// The resource the export reads.
    public var resource: String
    /// What kind of resource `resource` is.
    public var resourceKind: ResourceKind
    /// The JSON edit sidecar applied, if any.
    public var sidecar: String?
    /// Apple adjustment data, when an `.AAE` decided the version (rendered, or named as not renderable). An `.AAE` is
    /// read only then: beside a rendered edit, a sidecar or for the original it is not read, and this is nil.
    public var adjustmentData: AdjustmentInfo?
    /// Why this resource and version.
    public var reason: String
    /// The Apple adjustments rendered (`Trim`, `SlowMotion`, `Mute`), when an `.AAE` was rendered.
    public var appliedAdjustments: [String]?

    /// Creates the value from each of its fields.
    public init(requested: AssetVersion, delivered: AssetVersion, resource: String, resourceKind: ResourceKind, sidecar: String? = nil, adjustmentData: AdjustmentInfo? = nil, reason: String) {
        self.requested = requested; self.delivered = delivered; self.resource = resource; self.resourceKind = resourceKind; self.sidecar = sidecar; self.adjustmentData = adjustmentData; self.reason = reason
    }
}

/// The kinds of file an asset can have, after `PHAssetResourceType`.
public enum ResourceKind: String, Codable, Sendable, CaseIterable {
    /// The untouched video or audio (`IMG_1234.MOV`).
    case original
    /// The movie of a Live Photo: a video beside a still of the same name (`IMG_1234.MOV` beside `IMG_1234.HEIC`).
    case pairedVideo
    /// The still of a Live Photo (`IMG_1234.HEIC` / `.JPG`).
    case photo
    /// A rendered edit: Apple's `IMG_E1234.MOV`, or `IMG_1234_edited.mov`.
    case renderedEdit
    /// Our JSON edit sidecar: `IMG_1234.edit.json` (or `IMG_1234.MOV.edit.json`).
    case editSidecar
    /// Apple's adjustment data: `IMG_1234.AAE` (a plist; its edits are opaque here).
    case adjustmentData
}
