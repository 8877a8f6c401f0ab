import CarouselTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Fault: the disk fills up while `carouselctl calibrate` writes the calibration file (issue 15).
///
/// The calibration lives on a 16 KiB tmpfs (4 pages) mounted inside `unshare -rm` (a private
/// mount namespace, as root or as a user with unprivileged user namespaces); the old file takes
/// one page and a filler the other three, so the temporary file of the atomic write gets
/// `ENOSPC`. Expected: exit 74 with a message naming the file system error and where, the old
/// file byte for byte, and neither a temporary file nor a `.bak` left behind.
@Suite struct FaultDiskFullTests {
    @Test func calibrationOnAFullDiskFailsClearlyAndKeepsTheOldFile() throws {
        let work = TestTemp.path("disk-full")
        let mountPoint = work + "/mnt"
        #expect(mkdir(work, 0o755) == 0 && mkdir(mountPoint, 0o755) == 0)
        defer {
            for f in ["calibration.conf", "carouseld.conf", "stdout", "stderr"] { unlink(work + "/" + f) }
            rmdir(mountPoint)
            rmdir(work)
        }
        let ctl = TestPaths.product("carouselctl")
        let recording = try TestPaths.dataset("xio-fusion-example/sensor_data.csv")
        let config = work + "/carouseld.conf"
        try TestTemp.write("[calibration]\nfile = \(mountPoint)/calibration.conf\n[server]\nsocket = \(work)/no-daemon.sock\n", to: config)
        // The old calibration: a real one, written where there is room.
        let first = try UmockdevProcess(ctl, ["calibrate", "--replay", recording, "--duration", "10", "--config", config,
                                              "--output", work + "/calibration.conf", "--yes"], testbed: nil).waitForExit(timeoutSeconds: 120)
        try #require(first.status == 0, "first calibration: \(first.standardError)")
        let old = try #require(readTextFile(work + "/calibration.conf"))

        let script = """
        mount -t tmpfs -o size=16k,mode=0755 tmpfs "$1" || { echo "mount failed"; exit 90; }
        cp "$2" "$1/calibration.conf" && head -c 12288 /dev/zero > "$1/filler" 2>/dev/null
        df -k "$1" | tail -1 | awk '{print "available=" $4}'
        "$3" calibrate --replay "$4" --duration 10 --config "$5" --yes >"$6/stdout" 2>"$6/stderr"
        echo "status=$?"
        ls -a "$1" | sed 's/^/entry=/'
        cat "$1/calibration.conf"
        """
        let run = try UmockdevProcess("/usr/bin/unshare", ["-rm", "/bin/sh", "-c", script, "sh", mountPoint,
                                                          work + "/calibration.conf", ctl, recording, config, work],
                                      testbed: nil).waitForExit(timeoutSeconds: 120)
        guard run.status == 0, run.standardOutput.contains("status=") else {
            Issue.record("""
                this test needs root or unprivileged user namespaces: it mounts a tmpfs inside \
                `unshare -rm`, which failed (exit \(run.status)): \(run.standardError) \(run.standardOutput)
                """)
            return
        }
        let out = run.standardOutput.split(separator: "\n").map(String.init)
        #expect(out.contains("available=0"), "the tmpfs was not full: \(out)")
        let stderr = readTextFile(work + "/stderr") ?? ""
        #expect(out.contains("status=74"), "carouselctl calibrate on a full disk: \(out); stderr: \(stderr)")
        #expect(stderr.contains("No space left on device"), "\(stderr)")
        // Named by the file the user asked for, then the temporary copy whose write failed.
        #expect(stderr.contains(mountPoint + "/calibration.conf: write of its temporary copy " + mountPoint + "/.calibration.conf.tmp-"),
                "the message names the target: \(stderr)")
        // Nothing but the old file and the filler: no temporary, no backup.
        let entries = out.filter { $0.hasPrefix("entry=") }.map { String($0.dropFirst(6)) }.filter { $0 != "." && $0 != ".." }
        #expect(entries.sorted() == ["calibration.conf", "filler"])
        // The old file, byte for byte: what follows the ls lines is its text.
        let content = out.drop { !$0.hasPrefix("entry=") }.drop { $0.hasPrefix("entry=") }.joined(separator: "\n") + "\n"
        #expect(content == old)
    }
}
