#if canImport(Glibc)
import Glibc
#endif

/// Which other processes hold a device node open, from `/proc/PID/fd` (the links name the
/// node, e.g. `/dev/iio:device0`) and `/proc/PID/comm`. An IIO buffer is one reader's at a time:
/// the kernel answers `EBUSY` to a second opener, and this says who the first one is
/// (typically iio-sensor-proxy, which GNOME and KDE run). Processes whose `fd` directory this
/// user may not read (another user's, without CAP_SYS_PTRACE) cannot be seen.
enum DeviceHolders {
    /// `["iio-sensor-proxy (pid 412)"]`: every process but `excluding` with `devnode` open,
    /// by pid; empty when none is visible.
    static func holders(of devnode: String, excluding: pid_t = getpid()) -> [String] {
        guard !devnode.isEmpty, let proc = opendir("/proc") else { return [] }
        defer { closedir(proc) }
        var found: [(pid_t, String)] = []
        while let entry = readdir(proc) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let pid = pid_t(name), pid != excluding, holds(pid: pid, devnode: devnode) else { continue }
            found.append((pid, command(of: pid)))
        }
        return found.sorted { $0.0 < $1.0 }.map { "\($0.1) (pid \($0.0))" }
    }

    /// "the buffer of iio:device0 (/dev/iio:device0) is held by another process: iio-sensor-proxy
    /// (pid 412)", or "… by another process (not visible in /proc to this user)".
    static func busyText(id: String, devnode: String) -> String {
        let who = holders(of: devnode)
        let node = devnode.isEmpty ? "" : " (\(devnode))"
        return "the buffer of \(id)\(node) is held by another process"
            + (who.isEmpty ? " (not visible in /proc to this user)" : ": " + who.joined(separator: ", "))
    }

    private static func holds(pid: pid_t, devnode: String) -> Bool {
        let dir = "/proc/\(pid)/fd"
        guard let fds = opendir(dir) else { return false }
        defer { closedir(fds) }
        var target = [CChar](repeating: 0, count: 256)
        while let entry = readdir(fds) {
            let fd = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard fd.first?.isNumber == true else { continue }
            let n = readlink(dir + "/" + fd, &target, target.count - 1)
            guard n > 0 else { continue }
            if String(decoding: target[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) == devnode { return true }
        }
        return false
    }

    private static func command(of pid: pid_t) -> String {
        let fd = open("/proc/\(pid)/comm", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "?" }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = read(fd, &buffer, buffer.count)
        guard n > 0 else { return "?" }
        return String(decoding: buffer[0..<n], as: UTF8.self).trimmingCharacters(in: "\n")
    }
}
