#if canImport(Glibc)
import Glibc
#endif
import Testing
import CarouselTestSupport
@testable import CarouselCommandLine

/// A calibration killed between creating and renaming its temporary file left it behind, and
/// no later run removed it (issue 15, defect 8): 254 `kill -9` left 254 files.
@Suite struct StaleTemporaryFilesTests {
    func names(_ dir: String) -> [String] { AtomicWriteTests().listing(dir) }

    /// Sets a file's modification time to `secondsAgo` before now.
    func age(_ path: String, secondsAgo: Int) {
        var times = [timespec(tv_sec: time(nil) - secondsAgo, tv_nsec: 0), timespec(tv_sec: time(nil) - secondsAgo, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
    }

    @Test func theWriterPIDIsReadFromBothPatterns() {
        #expect(StaleTemporaryFiles.writerPID(of: ".calibration.conf.tmp-4242-a1B2c3", base: "calibration.conf") == 4242)
        #expect(StaleTemporaryFiles.writerPID(of: ".calibration.conf.bak-17", base: "calibration.conf") == 17)
        #expect(StaleTemporaryFiles.writerPID(of: ".calibration.conf.tmp-a1B2c3", base: "calibration.conf") == nil)
        #expect(StaleTemporaryFiles.writerPID(of: ".other.conf.tmp-17-x", base: "calibration.conf") == nil)
    }

    /// Dead writer → removed at once; live writer → kept unless older than 10 minutes; a name
    /// without a PID (or any other file) → by age only; other files are never touched.
    @Test func removesWhatDeadOrOldWritersLeft() {
        let dir = makeTempDirectory("stale")
        let live: Int32 = 1000  // pid 2000 is dead
        let files = [".calibration.conf.tmp-2000-AAAAAA", ".calibration.conf.bak-2000",   // dead writer
                     ".calibration.conf.tmp-1000-BBBBBB",                                   // live, fresh
                     ".calibration.conf.tmp-1000-CCCCCC",                                   // live, 11 min old
                     ".calibration.conf.tmp-DDDDDD",                                        // no pid, fresh
                     ".calibration.conf.tmp-EEEEEE",                                        // no pid, 11 min old
                     "calibration.conf", "calibration.conf.bak", ".other.conf.tmp-2000-FFFFFF"]
        for f in files { writeFile(dir + "/" + f, "x\n") }
        for f in [".calibration.conf.tmp-1000-CCCCCC", ".calibration.conf.tmp-EEEEEE", "calibration.conf.bak"] {
            age(dir + "/" + f, secondsAgo: 660)
        }
        let removed = StaleTemporaryFiles.remove(base: "calibration.conf", in: dir, nowSeconds: Int64(time(nil)),
                                                 isAlive: { $0 == live })
        #expect(removed == [".calibration.conf.bak-2000", ".calibration.conf.tmp-1000-CCCCCC",
                            ".calibration.conf.tmp-2000-AAAAAA", ".calibration.conf.tmp-EEEEEE"])
        #expect(names(dir) == [".calibration.conf.tmp-1000-BBBBBB", ".calibration.conf.tmp-DDDDDD",
                               ".other.conf.tmp-2000-FFFFFF", "calibration.conf", "calibration.conf.bak"])
    }

    /// The real sequence: `carouselctl calibrate` killed after writing its temporary file, then
    /// a normal run, leaves only the calibration and its backup.
    @Test func theNextCalibrationRemovesWhatAKilledOneLeft() throws {
        let (dir, _, status) = try AtomicWriteTests().killedRun(fault: "after-temp-write")
        #expect(status == 128 + SIGKILL)
        let left = names(dir).filter { $0.hasPrefix(".calibration.conf.tmp-") }
        #expect(left.count == 1, "\(names(dir))")
        // The killed writer's pid is in the name, and that process is gone.
        let pid = left.first.flatMap { StaleTemporaryFiles.writerPID(of: $0, base: "calibration.conf") }
        #expect(pid.map { !StaleTemporaryFiles.processExists($0) } == true, "\(left)")
        try AtomicFileWriter().write("new\n", to: dir + "/calibration.conf")
        #expect(names(dir) == ["calibration.conf", "calibration.conf.bak", "carouseld.conf"])
    }
}
