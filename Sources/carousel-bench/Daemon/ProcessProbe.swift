import Glibc

/// Reads another process's resource use from /proc (proc(5)): CPU time of all its threads from
/// `/proc/PID/task/*/schedstat` (nanoseconds on the CPU, exact, unlike the 10 ms ticks of
/// `/proc/PID/stat`), context switches and memory from `/proc/PID/status`.
struct ProcessProbe {
    let pid: pid_t

    struct Snapshot {
        /// CPU time of all threads, nanoseconds.
        var cpuNanoseconds: Int64
        /// Voluntary context switches summed over threads (each is a sleep → wake-up).
        var voluntarySwitches: Int64
        var involuntarySwitches: Int64
        /// CLOCK_MONOTONIC time of the snapshot, nanoseconds.
        var time: Int64
    }

    func snapshot() -> Snapshot {
        var cpu: Int64 = 0, voluntary: Int64 = 0, involuntary: Int64 = 0
        for tid in threads() {
            let base = "/proc/\(pid)/task/\(tid)"
            if let text = Self.read(base + "/schedstat"), let first = text.split(separator: " ").first {
                cpu += Int64(first) ?? 0
            }
            if let status = Self.read(base + "/status") {
                voluntary += Self.field(status, "voluntary_ctxt_switches") ?? 0
                involuntary += Self.field(status, "nonvoluntary_ctxt_switches") ?? 0
            }
        }
        return Snapshot(cpuNanoseconds: cpu, voluntarySwitches: voluntary, involuntarySwitches: involuntary,
                        time: BenchClock.monotonicNanoseconds())
    }

    /// The thread ids of the process.
    func threads() -> [String] {
        guard let dir = opendir("/proc/\(pid)/task") else { return [] }
        defer { closedir(dir) }
        var result: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if let first = name.first, first.isNumber { result.append(name) }
        }
        return result
    }

    /// `VmRSS` (resident now) and `VmHWM` (peak resident), kB.
    func memoryKilobytes() -> (rss: Int64, hwm: Int64)? {
        guard let status = Self.read("/proc/\(pid)/status"),
              let rss = Self.field(status, "VmRSS"), let hwm = Self.field(status, "VmHWM") else { return nil }
        return (rss, hwm)
    }

    /// The number after `name:` in a /proc status text (units such as `kB` ignored).
    static func field(_ text: String, _ name: String) -> Int64? {
        for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
            let value = line.dropFirst(name.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first
            return value.flatMap { Int64($0) }
        }
        return nil
    }

    /// A whole small file (procfs, sysfs) as text, or nil.
    static func read(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, 4096) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
