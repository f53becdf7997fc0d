extension FixedWidthInteger {
    /// `value` truncated toward zero like `Self(value)`, but NaN gives 0 and a value past either end gives that end:
    /// a number computed from a file's own (timestamps, chapter times, rates) must not trap a conversion.
    package init(saturating value: Double) {
        if value.isNaN {
            self = 0
        } else if value >= Double(Self.max) {  // Double(Int64.max) rounds up to 2⁶³: `>=` keeps 2⁶³ itself out
            self = .max
        } else if value <= Double(Self.min) {
            self = .min
        } else {
            self.init(value)
        }
    }
}
