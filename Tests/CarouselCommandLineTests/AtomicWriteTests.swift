#if canImport(Glibc)
import Glibc
#endif
import Testing
import CarouselProtocol
import CarouselTestSupport
import CLinux
@testable import CarouselCommandLine

/// The calibration file is replaced atomically: a writer killed at any step leaves the old file
/// whole (docs/CLI.md "calibrate", issue 6).
@Suite struct AtomicWriteTests {
    /// Names in `dir` other than `.` and `..`.
    func listing(_ dir: String) -> [String] {
        guard let d = opendir(dir) else { return [] }
        defer { closedir(d) }
        var names: [String] = []
        while let entry = readdir(d) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    @Test func writesNewFileThenKeepsPreviousAsBak() throws {
        let dir = makeTempDirectory("atomic")
        let path = dir + "/calibration.conf"
        let writer = AtomicFileWriter()
        #expect(try writer.write("first\n", to: path) == false)
        #expect(readTextFile(path) == "first\n")
        #expect(listing(dir) == ["calibration.conf"])
        var st = stat()
        #expect(stat(path, &st) == 0 && st.st_mode & 0o777 == 0o644)

        #expect(try writer.write("second\n", to: path) == true)
        #expect(readTextFile(path) == "second\n")
        #expect(readTextFile(path + ".bak") == "first\n")
        #expect(try writer.write("third\n", to: path) == true)
        #expect(readTextFile(path + ".bak") == "second\n")
        #expect(listing(dir) == ["calibration.conf", "calibration.conf.bak"])  // no temporary left
    }

    @Test func unwritableDirectoryIsAnErrorNamingThePath() {
        #expect(throws: FileIOError.self) { try AtomicFileWriter().write("x", to: "/nonexistent-dir-carouselctl/c.conf") }
        do {
            try AtomicFileWriter().write("x", to: "/nonexistent-dir-carouselctl/c.conf")
        } catch {
            #expect(error.description.contains("/nonexistent-dir-carouselctl"))
            #expect(error.exitStatus == .noInput)
        }
    }

    /// Runs the built `carouselctl calibrate` with a fault point and checks what survives.
    func killedRun(fault: String) throws -> (dir: String, old: String, status: Int32) {
        let dir = makeTempDirectory("kill-\(fault)")
        let config = writeTestConfig(in: dir)
        let old = CalibrationFileTests.sample.serialized()
        writeFile(dir + "/calibration.conf", old)
        let process = try UmockdevProcess(
            TestPaths.product("carouselctl"),
            ["calibrate", "--replay", try TestPaths.dataset("xio-fusion-example/sensor_data.csv"), "--duration", "10",
             "--config", config, "--yes"],
            testbed: nil, environment: ["CAROUSELCTL_FAULT": fault])
        let result = try process.waitForExit(timeoutSeconds: 60)
        return (dir, old, result.status)
    }

    @Test func killedAfterTempWriteLeavesOldFileIntact() throws {
        let (dir, old, status) = try killedRun(fault: "after-temp-write")
        #expect(status == 128 + SIGKILL)
        #expect(readTextFile(dir + "/calibration.conf") == old)
        #expect(!fileExists(dir + "/calibration.conf.bak"))
        // The abandoned temporary is complete too: the kill came after its fsync.
        let temps = listing(dir).filter { $0.hasPrefix(".calibration.conf.tmp-") }
        #expect(temps.count == 1)
        let temp = try readCalibration(dir + "/" + (temps.first ?? ""))
        #expect(temp.samples == 1001)
    }

    @Test func killedAfterBackupLeavesOldFileAndBak() throws {
        let (dir, old, status) = try killedRun(fault: "after-backup")
        #expect(status == 128 + SIGKILL)
        #expect(readTextFile(dir + "/calibration.conf") == old)
        #expect(readTextFile(dir + "/calibration.conf.bak") == old)
    }

    @Test func unkilledRunReplacesAndKeepsBak() throws {
        let dir = makeTempDirectory("nokill")
        let config = writeTestConfig(in: dir)
        let old = CalibrationFileTests.sample.serialized()
        writeFile(dir + "/calibration.conf", old)
        let process = try UmockdevProcess(
            TestPaths.product("carouselctl"),
            ["calibrate", "--replay", try TestPaths.dataset("xio-fusion-example/sensor_data.csv"), "--duration", "10",
             "--config", config, "--yes"], testbed: nil)
        let result = try process.waitForExit(timeoutSeconds: 60)
        #expect(result.status == 0, "stderr: \(result.standardError)")
        #expect(readTextFile(dir + "/calibration.conf.bak") == old)
        #expect(try readCalibration(dir + "/calibration.conf").samples == 1001)
        #expect(listing(dir) == ["calibration.conf", "calibration.conf.bak", "carouseld.conf"])
    }
}

/// Where `calibrate` cannot write and `calibration show` cannot read, the exit statuses of
/// docs/CLI.md: a failed write is 74 (a missing directory too: nothing to read is missing), an
/// output that is a directory is refused before any sample is taken, and `show` on a directory
/// is 66 as `tilt` on one.
@Suite struct CalibrationPathTests {
    @Test func anOutputInAMissingDirectoryIsAFailedWrite() throws {
        let dir = makeTempDirectory("nodir")
        let run = runCtl(["calibrate", "--replay", try TestPaths.dataset("xio-fusion-example/sensor_data.csv"), "--duration", "5",
                          "--output", dir + "/missing/calibration.conf", "--config", writeTestConfig(in: dir), "--yes"])
        #expect(run.status == .ioError, "\(run.err)")
        #expect(run.err.contains("\(dir)/missing/calibration.conf: create a temporary file in \(dir)/missing failed: No such file or directory"))
    }

    @Test func anOutputThatIsADirectoryIsRefusedFirst() throws {
        let dir = makeTempDirectory("isdir")
        let run = runCtl(["calibrate", "--replay", try TestPaths.dataset("xio-fusion-example/sensor_data.csv"), "--duration", "5",
                          "--output", dir, "--config", writeTestConfig(in: dir), "--yes"])
        #expect(run.status == .ioError)
        #expect(run.err == "carouselctl: calibrate: cannot write \(dir): it is a directory (--output names the file to write)\n")
        #expect(run.out.isEmpty)
    }

    @Test func showingADirectoryIsNoInput() {
        let dir = makeTempDirectory("showdir")
        let run = runCtl(["calibration", "show", "--file", dir, "--socket", dir + "/no.sock"])
        #expect(run.status == .noInput)
        #expect(run.err == "carouselctl: \(dir): is a directory, not a file\n")
    }

    /// `/dev/zero` was read without end (the process aborted once memory ran out), and so was a
    /// pipe or a file too long to be a calibration file. A device is refused unread; a FIFO is
    /// read as a file (`<(…)` works), as far as the limit.
    @Test func showingADeviceOrAnOverlongFileOrPipeIsRefused() throws {
        let dir = makeTempDirectory("showdevice")
        let device = runCtl(["calibration", "show", "--file", "/dev/zero", "--socket", dir + "/no.sock"])
        #expect(device.status == .noInput)
        #expect(device.err == "carouselctl: /dev/zero: not a regular file but a character device\n")
        let huge = dir + "/huge.conf"
        let fd = open(huge, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
        #expect(fd >= 0 && ftruncate(fd, 64 * 1024 + 1) == 0)
        close(fd)
        let long = runCtl(["calibration", "show", "--file", huge, "--socket", dir + "/no.sock"])
        #expect(long.status == .dataError)
        #expect(long.err == "carouselctl: \(huge): larger than 64 KiB\n")
        // A FIFO holding 64 KiB + 1 (its buffer grown to 128 KiB) and kept open for writing, as
        // a writer that never stops: read up to the limit, then refused.
        let fifo = dir + "/fifo.conf"
        #expect(mkfifo(fifo, 0o600) == 0)
        let writer = open(fifo, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        defer { close(writer) }
        let setPipeSize: Int32 = 1031  // F_SETPIPE_SZ (fcntl(2)), which Glibc declares for _GNU_SOURCE only
        #expect(writer >= 0 && fcntl(writer, setPipeSize, 128 * 1024) >= 128 * 1024)
        let bytes = [UInt8](repeating: 0x23, count: 64 * 1024 + 1)
        #expect(bytes.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) } == bytes.count)
        let piped = runCtl(["calibration", "show", "--file", fifo, "--socket", dir + "/no.sock"])
        #expect(piped.status == .dataError)
        #expect(piped.err == "carouselctl: \(fifo): larger than 64 KiB\n")
    }

    /// A recording whose first timestamp is near Int64.max: `--duration`'s end overflowed and
    /// carouselctl trapped. Its two samples are now simply too few.
    @Test func aDurationPastTheLastNanosecondIsTheWholeRecording() throws {
        let dir = makeTempDirectory("calibratemax")
        let recording = dir + "/max.csv"
        let fd = open(recording, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
        let text = "timestamp_ns,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z\n"
            + "9223372036854775000,0,0,9.8,0,0,0\n9223372036854775001,0,0,9.8,0,0,0\n"
        #expect(text.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count - 1) } == text.utf8.count)
        close(fd)
        let run = runCtl(["calibrate", "--replay", recording, "--duration", "5", "--output", dir + "/c.conf",
                          "--config", writeTestConfig(in: dir), "--yes"])
        #expect(run.status == .dataError)
        #expect(run.err.hasSuffix("carouselctl: calibrate: refused: only 2 samples (at least 20 needed): is the sensor delivering data?\n"),
                "\(run.err)")
    }

    /// The output is replaced whole by a rename, so an output that is a device node was replaced
    /// with a regular file (`--output /dev/null` as root: the node moved to `.bak`), and a FIFO
    /// made the read of the previous calibration wait for a writer. An output that is not a
    /// regular file is refused before any sample is taken (a socket and a FIFO stand here for a
    /// device node, which only root can make: the same check, by what lstat says the name is).
    @Test func anOutputThatIsNotARegularFileIsRefusedFirst() throws {
        let dir = makeTempDirectory("notregular")
        #expect(mkfifo(dir + "/fifo.conf", 0o600) == 0)
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_un()
        let length = clinux_sockaddr_un(&address, dir + "/socket.conf")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(length)) }
        }
        #expect(bound == 0)
        let recording = try TestPaths.dataset("xio-fusion-example/sensor_data.csv")
        for (name, kind) in [("fifo.conf", "a FIFO"), ("socket.conf", "a socket")] {
            let run = runCtl(["calibrate", "--replay", recording, "--duration", "5", "--output", dir + "/" + name,
                              "--config", writeTestConfig(in: dir), "--yes"])
            #expect(run.status == .ioError)
            #expect(run.err == "carouselctl: calibrate: cannot write \(dir)/\(name): it is \(kind), not a regular file "
                    + "(--output names the file to write, which is replaced whole)\n")
            var info = stat()
            #expect(lstat(dir + "/" + name, &info) == 0 && info.st_mode & S_IFMT != S_IFREG)
            #expect(access(dir + "/" + name + ".bak", F_OK) != 0)
        }
    }

    /// `calibrate --replay /dev/zero`, or a device among `--from-files`, read without end and
    /// aborted. Refused unread, before any file is written.
    @Test func calibratingFromADeviceIsRefusedUnread() throws {
        let dir = makeTempDirectory("calibratedevice")
        let config = writeTestConfig(in: dir)
        let replay = runCtl(["calibrate", "--replay", "/dev/zero", "--output", dir + "/c.conf", "--config", config, "--yes"])
        #expect(replay.status == .noInput)
        #expect(replay.err == "carouselctl: /dev/zero: not a regular file but a character device\n")
        let good = try TestPaths.dataset("xio-fusion-example/sensor_data.csv")
        let files = runCtl(["calibrate", "--from-files", good, good, "/dev/urandom", good, good, good,
                            "--output", dir + "/c.conf", "--config", config, "--yes"])
        #expect(files.status == .noInput)
        #expect(files.err.hasSuffix("carouselctl: /dev/urandom: not a regular file but a character device\n"), "\(files.err)")
        #expect(access(dir + "/c.conf", F_OK) != 0)
    }
}
