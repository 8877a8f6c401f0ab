/// The `sampling_frequency` choice, a pure function (docs/SENSORS.md "Sampling frequency").
public enum SamplingRate {
    /// The lowest of `available` at or above `requestedHz`; the highest when all are below; the
    /// request itself when the list is empty.
    public static func choose(requestedHz: Double, available: [Double]) -> Double {
        let sorted = available.filter { $0 > 0 }.sorted()
        guard let top = sorted.last else { return requestedHz }
        return sorted.first { $0 >= requestedHz - 1e-9 } ?? top
    }

    /// Whether `hz` can be a device's rate: positive and at most 1 MHz (a motion sensor runs at
    /// a few kHz at most; `1e300` in sysfs is garbage, not a rate).
    static func isPlausible(_ hz: Double) -> Bool { hz > 0 && hz <= 1e6 }

    /// The period of `hz` in nanoseconds, with the rate clamped to 0.1 Hz … 1 MHz so that no
    /// timer is disarmed by a zero period or overflows.
    static func periodNanoseconds(_ hz: Double) -> Int64 {
        let clamped = hz.isNaN ? 0.1 : min(max(hz, 0.1), 1e6)
        return Int64(1e9 / clamped)
    }

    /// A rate as written to sysfs: `25`, `12.5`.
    static func text(_ hz: Double) -> String {
        hz == hz.rounded() && abs(hz) < 1e9 ? String(Int64(hz)) : hz.description
    }
}
