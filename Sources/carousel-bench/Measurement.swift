/// One reported figure: the median of several runs (after a warm-up), with its spread and
/// the target it is held against.
struct Measurement {
    /// Dotted name, e.g. `engine.frame_ns.items_10`.
    var name: String
    /// Unit of `value`, e.g. `ns`, `items/s`, `% of one core`, `MB`.
    var unit: String
    /// The per-run values, in run order.
    var samples: [Double]
    /// The target as text (`≤ 1 ms`), or nil when the figure is informative only.
    var target: String?
    /// Whether the median meets the target (nil: no target).
    var meetsTarget: Bool?

    init(name: String, unit: String, samples: [Double], target: String? = nil,
         check: ((Double) -> Bool)? = nil) {
        self.name = name
        self.unit = unit
        self.samples = samples
        self.target = target
        let m = Statistics.median(samples)
        self.meetsTarget = check.map { $0(m) }
    }

    var runs: Int { samples.count }
    var median: Double { Statistics.median(samples) }
    var minimum: Double { samples.min() ?? 0 }
    var maximum: Double { samples.max() ?? 0 }
    /// The figure itself: the median of the runs.
    var value: Double { median }
}

enum Statistics {
    /// Median (mean of the two middle values for an even count); 0 for no values.
    static func median(_ values: [Double]) -> Double {
        percentile(values, 50)
    }

    /// Linear-interpolated percentile `p` (0…100) of `values` (the "R-7" definition that
    /// NumPy's default uses); 0 for no values.
    static func percentile(_ values: [Double], _ p: Double) -> Double {
        let sorted = values.filter { $0.isFinite }.sorted()
        guard !sorted.isEmpty else { return 0 }
        let rank = min(max(p, 0), 100) / 100 * Double(sorted.count - 1)
        let lower = Int(rank.rounded(.down))
        let upper = min(lower + 1, sorted.count - 1)
        let fraction = rank - Double(lower)
        return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction
    }
}

/// Runs `body` `warmups` times without recording, then `runs` times, returning each run's result.
func repeatRuns(warmups: Int, runs: Int, _ body: () -> Double) -> [Double] {
    for _ in 0..<warmups { blackHole(body()) }
    return (0..<runs).map { _ in body() }
}
