/// The `hacc` that fencerule and visits take for a fix without one (`--default-hacc`): one
/// value in both, since both read `hacc` as the same thing (SPEC: a radius of about 68%
/// confidence) and ask the same question of a fix that does not give it. 10 m is SPEC's
/// default for fencerule, and what phones and consumer receivers report under open sky.
public enum DefaultHacc {
    public static let metres = 10.0

    /// Said once per run, at the first fix without `hacc`, by the tools that use `hacc`.
    public static func note(_ metres: Double) -> String {
        "fixes without hacc are taken as --default-hacc \(DecimalNumber.text(metres)) m"
    }
}
