extension CRFSearch {
    /// The CRFs the search may choose from for `target` on `profile`'s encoder: 12…40 on x264/x265, 24…52 on SVT-AV1
    /// (`crfAboveX264` 12), narrowed by the target's `minCRF`/`maxCRF` and the encoder's `crfRange`
    /// (`bounds(crfRange:crfAboveX264:_:)`). Here, not in `Quality`, as `Quality` sits below `Presets`.
    public static func bounds(_ profile: EncoderProfile, _ target: QualityTarget) -> ClosedRange<Int> {
        bounds(crfRange: profile.crfRange, crfAboveX264: profile.crfAboveX264, target)
    }
}
