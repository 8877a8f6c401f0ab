import CarouselConfig
import CarouselTestSupport
import Testing
@testable import CarouselDaemon
#if canImport(Glibc)
import Glibc
#endif

/// The shipped configuration files and the bundled demo recording.
@Suite struct ConfigFilesTests {
    static let root = TestPaths.packageRoot

    @Test func shippedConfigIsValidAndEqualsTheDefaults() throws {
        let path = Self.root + "/configs/carouseld.conf"
        #expect(try DaemonConfiguration.load(path: path) == .defaults)
    }

    /// Every key appears exactly once as a commented-out default, and uncommenting them all
    /// gives exactly the built-in defaults: the documented defaults cannot drift from the code.
    @Test func shippedConfigDocumentsEveryKeyWithItsDefault() throws {
        let path = Self.root + "/configs/carouseld.conf"
        let text = try #require(readTextFile(path))
        var uncommented: [String] = []
        var documented: [String: Int] = [:]
        var section = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("[") { section = String(line.dropFirst().prefix { $0 != "]" }) }
            if line.hasPrefix(";"), let equals = line.firstIndex(of: "=") {
                let key = String(line.dropFirst()[..<equals].filter { $0 != " " })
                documented[section + "." + key, default: 0] += 1
                uncommented.append(String(line.dropFirst()))
            } else {
                uncommented.append(String(line))
            }
        }
        for (section, key) in DaemonConfiguration.knownKeys {
            #expect(documented[section + "." + key] == 1, "[\(section)] \(key) is not documented exactly once")
        }
        #expect(documented.count == DaemonConfiguration.knownKeys.count)
        let all = try DaemonConfiguration.parse(text: uncommented.joined(separator: "\n"), path: path)
        #expect(all == .defaults)
    }

    @Test func demoConfigReplaysTheBundledRecording() throws {
        let configuration = try DaemonConfiguration.load(path: Self.root + "/configs/demo.conf")
        #expect(configuration.sensor.source == .replay)
        #expect(configuration.sensor.replayLoop)
        #expect(configuration.sensor.replayFile == Self.root + "/configs/../data/demo-recording.csv")
        // No fixed socket under /tmp (another user could bind it first): the demo gives one in
        // a private folder with --socket, so the file leaves the default.
        #expect(configuration.server.socketPath == DaemonConfiguration.defaults.server.socketPath)
        #expect(!(readTextFile(Self.root + "/configs/demo.conf") ?? "/tmp/").contains("/tmp/carouseld-demo.sock"))
        #expect(readTextFile(configuration.sensor.replayFile)?.hasPrefix(
            "timestamp_ns,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z\n") == true)
    }

    @Test func docsDescribeEveryKey() throws {
        let text = try #require(readTextFile(Self.root + "/docs/CONFIGURATION.md"))
        for (section, key) in DaemonConfiguration.knownKeys {
            #expect(text.contains("`\(key)`"), "docs/CONFIGURATION.md lacks [\(section)] \(key)")
        }
    }

    /// The demo recording is the 26–48 s stretch of x-io's example, converted exactly as
    /// data/NOTICE says: compare rows with the source, converted here independently.
    @Test func demoRecordingIsTheDocumentedExcerpt() throws {
        let demo = try #require(readTextFile(Self.root + "/data/demo-recording.csv"))
        let source = try #require(readTextFile(try TestPaths.dataset("xio-fusion-example/sensor_data.csv")))
        #expect(demo.utf8.count <= 300 * 1024)
        let demoRows = demo.split(separator: "\n").dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).compactMap { Double($0) } }
        let sourceRows = source.split(separator: "\n").dropFirst().map { $0.split(separator: ",").compactMap { Double($0) } }
        let kept = sourceRows.filter { $0[0] >= 26.0 && $0[0] <= 48.0 }
        #expect(demoRows.count == kept.count)
        #expect(demoRows.allSatisfy { $0.count == 7 })
        let t0 = try #require(kept.first?[0])
        for (row, original) in zip(demoRows, kept) {
            #expect(abs(row[0] - (original[0] - t0) * 1e9) <= 1)
            for axis in 0..<3 {
                // g → m/s² and deg/s → rad/s, written with 7 significant digits.
                let accel = original[4 + axis] * 9.80665
                let gyro = original[1 + axis] * Double.pi / 180
                #expect(abs(row[1 + axis] - accel) <= 1e-6 * max(1, abs(accel)))
                #expect(abs(row[4 + axis] - gyro) <= 1e-6 * max(1, abs(gyro)))
            }
        }
        // It tilts about y: docs/FUSION.md "1. Conventions" roll = atan2(−u_x, sqrt(u_y² + u_z²)) reaches about ±60°.
        let rolls = demoRows.map { atan2Degrees(-$0[1], ($0[2] * $0[2] + $0[3] * $0[3]).squareRoot()) }
        #expect(rolls.max() ?? 0 > 55)
        #expect(rolls.min() ?? 0 < -55)
        #expect(abs(rolls.first ?? 99) < 5 && abs(rolls.last ?? 99) < 5)
    }

    @Test func noticeNamesOriginLicenceAndChanges() throws {
        let notice = try #require(readTextFile(Self.root + "/data/NOTICE"))
        #expect(notice.contains("https://github.com/xioTechnologies/Fusion"))
        #expect(notice.contains("d69784c8f7058a6545802b8852d26d6fcfd5e119"))
        #expect(notice.contains("MIT"))
        #expect(notice.contains("Copyright (c) 2021 x-io Technologies"))
    }
}

private func atan2Degrees(_ y: Double, _ x: Double) -> Double {
    atan2(y, x) * 180 / Double.pi
}
