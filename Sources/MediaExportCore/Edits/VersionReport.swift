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

    /// True when another version than the one asked for was delivered (said as a warning).
    public var warns: Bool { requested != delivered }

    /// True when the line says something a person needs: another version delivered, or edits applied or read (a
    /// rendered edit, a sidecar, an `.AAE`). An unedited original asked as `current` says nothing new.
    public var saysSomething: Bool {
        warns || resourceKind != .original || sidecar != nil || adjustmentData != nil || !(appliedAdjustments ?? []).isEmpty
    }

    /// Creates the value from each of its fields.
    public init(requested: AssetVersion, delivered: AssetVersion, resource: String, resourceKind: ResourceKind, sidecar: String? = nil, adjustmentData: AdjustmentInfo? = nil, reason: String) {
        self.requested = requested; self.delivered = delivered; self.resource = resource; self.resourceKind = resourceKind; self.sidecar = sidecar; self.adjustmentData = adjustmentData; self.reason = reason
    }
}
