#if canImport(Glibc)
import Glibc
#endif
import Testing
import CarouselTestSupport
@testable import MotionFusion

/// iio-sensor-proxy's published orientation rule (src/orientation.c, `orientation_calc`), as
/// facts re-implemented for the comparison in docs/ORIENTATION.md: the accelerometer reading in
/// the Linux convention (lying face up reads z ≈ −g, so the negated specific force), in units of
/// 1/256 g truncated to integers; `p = round(atan2(x, √(y² + z²)))`, `l = round(atan2(y, √(x² + z²)))`
/// in degrees; both |p| and |l| above 35: keep; |p| > 35: `left-up` when p > 0 else `right-up`;
/// else |l| > 35: `bottom-up` when l > 0 else `normal`; else keep. It starts `undefined`, has no
/// face-up or face-down, no filtering and no dwell: each reading is judged alone.
struct SensorProxyOrientationRule {
    private(set) var orientation: DeviceOrientation = .undefined

    mutating func update(specificForce a: Vector3) -> DeviceOrientation {
        func scaled(_ v: Double) -> Double { Double(Int(-v * 256 / 9.81)) }
        let x = scaled(a.x), y = scaled(a.y), z = scaled(a.z)
        let degrees = 180 / Double.pi
        let p = (atan2(x, (y * y + z * z).squareRoot()) * degrees).rounded()
        let l = (atan2(y, (x * x + z * z).squareRoot()) * degrees).rounded()
        if abs(p) > 35 && abs(l) > 35 { return orientation }
        if abs(p) > 35 {
            orientation = p > 0 ? .leftUp : .rightUp
        } else if abs(l) > 35 {
            orientation = l > 0 ? .bottomUp : .normal
        }
        return orientation
    }
}

/// Flips of the displayed orientation (the edge orientations; `face-up`, `face-down` and
/// `undefined` keep the picture as it is) on recordings, carouseld's detector against
/// iio-sensor-proxy's rule. Run with `swift test --filter OrientationFlipTests` to print the table.
@Suite struct OrientationFlipTests {
    struct Flip: Equatable { var time: Double; var to: DeviceOrientation }

    /// The edge orientation changes of a sequence of (time, orientation), after the first edge.
    static func flips(_ sequence: [(Double, DeviceOrientation)]) -> [Flip] {
        var shown: DeviceOrientation?
        var result: [Flip] = []
        for (t, o) in sequence where o.displayRotation != nil {
            if let s = shown, s != o { result.append(Flip(time: t, to: o)) }
            shown = o
        }
        return result
    }

    static func carouseld(_ samples: [IMUSample]) -> [Flip] {
        var estimator = AttitudeEstimator()
        var detector = OrientationDetector()
        var sequence: [(Double, DeviceOrientation)] = []
        let t0 = samples.first?.timeSeconds ?? 0
        for s in samples {
            guard let e = estimator.update(s) else { continue }
            sequence.append((s.timeSeconds - t0, detector.update(e)))
        }
        return flips(sequence)
    }

    static func sensorProxy(_ samples: [IMUSample]) -> [Flip] {
        var rule = SensorProxyOrientationRule()
        let t0 = samples.first?.timeSeconds ?? 0
        return flips(samples.map { ($0.timeSeconds - t0, rule.update(specificForce: $0.accel)) })
    }

    static func describe(_ flips: [Flip]) -> String {
        flips.prefix(12).map { "\(($0.time * 100).rounded() / 100)→\($0.to.rawValue)" }.joined(separator: " ")
            + (flips.count > 12 ? " …" : "")
    }

    static let recordings: [(String, String, RecordingFormat?)] = [
        ("BROAD 10 slow translation", "broad-10-slow-translation-a/10_undisturbed_slow_translation_A.csv", .broad),
        ("BROAD 15 fast translation", "broad-15-fast-translation-a/15_undisturbed_fast_translation_A.csv", .broad),
        ("BROAD 24 tapping", "broad-24-tapping-a/24_disturbed_tapping_A.csv", .broad),
        ("BROAD 26 vibration", "broad-26-phone-vibration-a/26_disturbed_phone_vibration_A.csv", .broad),
        ("x-io gait walk", "xio-gait-tracking-short-walk/short_walk.csv", nil),
        ("x-io ±60° swings", "xio-fusion-example/sensor_data.csv", nil),
        ("BROAD 01 slow rotation", "broad-trial01-slow-rotation/01_undisturbed_slow_rotation_A.csv", .broad),
        ("BROAD 06 fast rotation", "broad-06-fast-rotation-a/06_undisturbed_fast_rotation_A.csv", .broad),
        ("BROAD 21 fast combined", "broad-21-fast-combined/21_undisturbed_fast_combined.csv", .broad),
    ]

    /// The reference's turns: the nearest edge of the reference up vector per sample (none while
    /// it is within 25° of face up or down: `e > 65°`), runs of one edge lasting at least
    /// `heldSeconds` are held orientations, and a turn is a change between consecutive held
    /// ones, at the start of the later run (when the reference entered that edge for good).
    static func referenceTurns(times: [Double], up: [Vector3?], heldSeconds: Double = 1) -> [Flip] {
        var runs: [(start: Double, end: Double, o: DeviceOrientation)] = []
        for (t, u) in zip(times, up) {
            var edge: DeviceOrientation?
            if let u, abs(asin(min(1, max(-1, u.z)))) * 180 / .pi <= 65 {
                edge = OrientationDetector.candidate(up: u, current: .undefined, configuration: .init(faceDegrees: 85))
            }
            if let e = edge, let last = runs.last, last.o == e, t - last.end < 0.1 {
                runs[runs.count - 1].end = t
            } else if let e = edge {
                runs.append((t, t, e))
            }
        }
        var turns: [Flip] = []
        var held: DeviceOrientation?
        for r in runs where r.end - r.start >= heldSeconds {
            if let h = held, h != r.o { turns.append(Flip(time: r.start, to: r.o)) }
            held = r.o
        }
        return turns
    }

    /// A detector's flips against the reference: a flip is correct when its new orientation is
    /// the reference's nearest edge (`referenceEdge`) at some moment within 0.5 s of the flip,
    /// false otherwise (a jolt, a vibration, an estimate gone astray). A reference turn (a change
    /// between held orientations, `referenceTurns`) is missed when no flip to its orientation
    /// comes between 1 s before and 3 s after it; delays are (first such flip) − turn, seconds.
    struct Score {
        var correct = 0, falseFlips = 0, missed = 0
        var delays: [Double] = []
        init(flips: [Flip], turns: [Flip], edgeAt: (Double) -> Set<DeviceOrientation>) {
            for f in flips {
                if edgeAt(f.time).contains(f.to) { correct += 1 } else { falseFlips += 1 }
            }
            for turn in turns {
                if let f = flips.first(where: { $0.to == turn.to && $0.time >= turn.time - 1 && $0.time <= turn.time + 3 }) {
                    delays.append(f.time - turn.time)
                } else {
                    missed += 1
                }
            }
        }
        var delayText: String {
            guard !delays.isEmpty else { return "—" }
            let sorted = delays.sorted()
            let median = sorted[sorted.count / 2]
            return "\((median * 100).rounded() / 100) (\((sorted.first! * 100).rounded() / 100)…\((sorted.last! * 100).rounded() / 100))"
        }
    }

    /// The reference's nearest edge per sample (nil within 25° of face up or down, or without a
    /// reference) and a lookup of the edges it shows within ±0.5 s of a time.
    static func edgeLookup(times: [Double], up: [Vector3?]) -> (Double) -> Set<DeviceOrientation> {
        let edges: [DeviceOrientation?] = up.map { u in
            guard let u, abs(asin(min(1, max(-1, u.z)))) * 180 / .pi <= 65 else { return nil }
            return OrientationDetector.candidate(up: u, current: .undefined, configuration: .init(faceDegrees: 85))
        }
        return { t in
            var lo = 0, hi = times.count
            while lo < hi { let mid = (lo + hi) / 2; if times[mid] < t - 0.5 { lo = mid + 1 } else { hi = mid } }
            var result = Set<DeviceOrientation>()
            var i = lo
            while i < times.count, times[i] <= t + 0.5 { if let e = edges[i] { result.insert(e) }; i += 1 }
            return result
        }
    }

    struct Row {
        var name: String, turns: Int, carouseld: Score, proxy: Score
        var line: String {
            "| \(name) | \(turns) | \(carouseld.correct + carouseld.falseFlips) | \(carouseld.falseFlips) | \(carouseld.missed) | "
                + "\(carouseld.delayText) | \(proxy.correct + proxy.falseFlips) | \(proxy.falseFlips) | \(proxy.missed) | \(proxy.delayText) |"
        }
    }

    /// One recording: samples, its reference turns (BROAD's optical reference; otherwise the
    /// default estimator's own up vector, for recordings without one).
    static func row(_ name: String, samples: [IMUSample], reference: [Vector3?]?) -> Row {
        let t0 = samples.first?.timeSeconds ?? 0
        let times = samples.map { $0.timeSeconds - t0 }
        var up = reference ?? []
        if reference == nil {
            var estimator = AttitudeEstimator()
            up = samples.map { estimator.update($0)?.up }
        }
        let turns = referenceTurns(times: times, up: up)
        let edgeAt = edgeLookup(times: times, up: up)
        return Row(name: name, turns: turns.count, carouseld: Score(flips: carouseld(samples), turns: turns, edgeAt: edgeAt),
                   proxy: Score(flips: sensorProxy(samples), turns: turns, edgeAt: edgeAt))
    }

    static let header = """
        | recording | reference turns | carouseld flips | carouseld false | carouseld missed | carouseld delay s, median (min…max) | iio-sensor-proxy flips | iio-sensor-proxy false | iio-sensor-proxy missed | iio-sensor-proxy delay s |
        |---|---|---|---|---|---|---|---|---|---|
        """

    /// The generated sequence's turns are known exactly: each ends at `turnEndSeconds`; the
    /// reference turn time is when the in-plane angle crosses the 45° boundary, mid-turn
    /// (0.25 s before its end).
    @Test func generatedTurnsAreAllDetectedWithoutFalseFlips() {
        let recording = TurningRecording()
        let turns = zip(recording.turnEndSeconds, recording.orientationsAfterTurns).map {
            Flip(time: $0.0 - 0.25, to: DeviceOrientation(rawValue: $0.1)!)
        }
        let times = recording.samples.map(\.timeSeconds)
        let edgeAt = Self.edgeLookup(times: times, up: recording.samples.map { $0.accel.normalized })
        let c = Score(flips: Self.carouseld(recording.samples), turns: turns, edgeAt: edgeAt)
        let p = Score(flips: Self.sensorProxy(recording.samples), turns: turns, edgeAt: edgeAt)
        #expect(c.correct == 4 && c.falseFlips == 0 && c.missed == 0)
        #expect(p.correct == 4 && p.falseFlips == 0)
        // The dwell (0.5 s) counts from θ = 55°, reached at τ = acos(1 − 2·55/90)/π = 0.5641 of
        // the 0.5 s turn, i.e. 0.032 s after the 45° crossing: delay 0.532 s (±1 sample).
        for d in c.delays { #expect(abs(d - 0.532) <= 0.011, "delay \(d)") }
        print(Self.header)
        print(Row(name: "generated portrait/landscape (4 turns of 90° in 0.5 s)", turns: 4, carouseld: c, proxy: p).line)
    }

    /// The recordings of ../shared/datasets: carouseld's detector has no more false flips than
    /// iio-sensor-proxy's rule on any of them. The table is docs/ORIENTATION.md's.
    @Test func recordingsHaveNoMoreFalseFlipsThanSensorProxy() throws {
        var rows: [Row] = []
        for (name, path, format) in Self.recordings {
            if format == .broad {
                let b = try Dataset.broad(path: path)
                rows.append(Self.row(name, samples: b.samples, reference: b.referenceUp))
            } else {
                rows.append(Self.row(name, samples: try Dataset.samples(path), reference: nil))
            }
        }
        print(Self.header)
        for r in rows {
            print(r.line)
            #expect(r.carouseld.falseFlips <= r.proxy.falseFlips, "\(r.name)")
        }
    }
}
