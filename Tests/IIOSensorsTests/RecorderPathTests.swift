#if canImport(Glibc)
import Glibc
#endif
import CarouselTestSupport
import MotionFusion
import Testing
@testable import IIOSensors

/// Output paths that must not be renamed over, and descriptors that must not leak.
@Suite(.serialized) struct RecorderPathTests {
    static func openDescriptors() -> Int {
        guard let dir = opendir("/proc/self/fd") else { return -1 }
        defer { closedir(dir) }
        var n = 0
        while readdir(dir) != nil { n += 1 }
        return n
    }

    @Test func directoryIsRefusedBeforeRecording() throws {
        let dir = "/tmp/carousel-recdir-\(getpid())"
        mkdir(dir, 0o755)
        defer { rmdir(dir) }
        for path in [dir, dir + "/"] {
            #expect(throws: SensorError.io(device: path, what: "open", errno: EISDIR)) { try Recorder(path: path) }
        }
        // Nothing was created next to it either.
        #expect(access(dir + ".partial-\(getpid())", F_OK) != 0)
    }

    @Test func missingDirectoryNamesThePath() {
        let path = "/nonexistent-\(getpid())/x.csv"
        #expect(throws: SensorError.io(device: path + ".partial-\(getpid())", what: "open", errno: ENOENT)) {
            try Recorder(path: path)
        }
    }

    @Test func fifoIsWrittenInPlaceNotReplaced() throws {
        let path = "/tmp/carousel-recfifo-\(getpid())"
        unlink(path)
        try #require(mkfifo(path, 0o600) == 0)
        defer { unlink(path) }
        let reader = open(path, O_RDONLY | O_NONBLOCK)
        try #require(reader >= 0)
        defer { close(reader) }
        let recorder = try Recorder(path: path)
        try recorder.append([IMUSample(timestampNanoseconds: 5, accel: Vector3(1, 2, 3), gyro: nil)])
        try recorder.finish()
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
        var bytes = [UInt8](repeating: 0, count: 4096)
        let n = read(reader, &bytes, bytes.count)
        let text = String(decoding: bytes[0..<max(n, 0)], as: UTF8.self)
        #expect(text == "timestamp_ns,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z\n5,1.0,2.0,3.0,,,\n")
    }

    @Test func openAndCloseCyclesLeakNoDescriptor() throws {
        let path = "/tmp/carousel-recleak-\(getpid()).csv"
        defer { unlink(path) }
        // Warm up (lazy allocations of the runtime and libudev), then count.
        for _ in 0..<2 {
            let r = try Recorder(path: path)
            try r.finish()
            let s = IIOSensorSource(configuration: IIOSourceConfiguration(watchHotplug: true))
            try? s.start()
            s.stop()
        }
        let before = Self.openDescriptors()
        let cycles = 100
        for _ in 0..<cycles {
            let r = try Recorder(path: path)
            try r.append([IMUSample(timestampNanoseconds: 1, accel: Vector3(0, 0, 9.8), gyro: nil)])
            try r.finish()
            _ = try? Recorder(path: "/nonexistent-\(getpid())/x.csv")
            let s = IIOSensorSource(configuration: IIOSourceConfiguration(watchHotplug: true))
            try? s.start()
            s.stop()
            _ = try? SensorDiscovery.inventory()
        }
        // Other suites run in this process at the same time and hold a few descriptors of their
        // own (child pipes), so the count may differ by a handful; one leaked descriptor per
        // cycle would add at least `cycles`.
        let grown = Self.openDescriptors() - before
        #expect(grown < cycles / 2, "\(grown) more descriptors after \(cycles) open/close cycles")
    }
}
