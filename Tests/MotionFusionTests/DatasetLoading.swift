import Testing
import CarouselTestSupport
@testable import MotionFusion

/// Dataset access shared by the suites (parsed once per test that needs it).
enum Dataset {
    static func text(_ relativePath: String) throws -> String {
        try #require(readTextFile(try TestPaths.dataset(relativePath)), "missing dataset \(relativePath)")
    }

    static func samples(_ relativePath: String) throws -> [IMUSample] {
        try RecordingReader.parse(text: try text(relativePath))
    }

    /// BROAD trial 01 with its optical reference: up vector (third row of R(q)), nil where
    /// the quaternion is missing, and the `movement` flag. Parsed here independently of the
    /// reader's column logic (fixed column order of the README).
    struct Broad {
        var samples: [IMUSample]
        var referenceUp: [Vector3?]
        var movement: [Bool]
    }

    /// The BROAD trials in `../shared/datasets` (issue 14's five and issue 26's two translations).
    static let broadTrials = [
        "01": "broad-trial01-slow-rotation/01_undisturbed_slow_rotation_A.csv",
        "06": "broad-06-fast-rotation-a/06_undisturbed_fast_rotation_A.csv",
        "21": "broad-21-fast-combined/21_undisturbed_fast_combined.csv",
        "24": "broad-24-tapping-a/24_disturbed_tapping_A.csv",
        "26": "broad-26-phone-vibration-a/26_disturbed_phone_vibration_A.csv",
        "10": "broad-10-slow-translation-a/10_undisturbed_slow_translation_A.csv",
        "15": "broad-15-fast-translation-a/15_undisturbed_fast_translation_A.csv",
    ]

    static func broad(trial: String = "01") throws -> Broad {
        try broad(path: try #require(broadTrials[trial], "no BROAD trial \(trial)"))
    }

    /// Any BROAD CSV under `../shared/datasets` with its reference (see `broad(trial:)`).
    static func broad(path: String) throws -> Broad {
        let text = try text(path)
        let samples = try RecordingReader.parse(text: text, format: .broad)
        var up: [Vector3?] = []
        var movement: [Bool] = []
        up.reserveCapacity(samples.count)
        for line in text.split(separator: "\n").dropFirst() {
            let f = line.split(separator: ",", omittingEmptySubsequences: false)
            guard f.count == 12, let w = Double(f[7]), let x = Double(f[8]), let y = Double(f[9]), let z = Double(f[10]) else {
                Issue.record("bad BROAD line \(line)")
                continue
            }
            let u = Vector3(2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y))
            up.append(u.isFinite ? u : nil)
            movement.append(f[11] == "1")
        }
        return Broad(samples: samples, referenceUp: up, movement: movement)
    }
}
