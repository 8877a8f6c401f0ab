#if canImport(Glibc)
import Glibc
#endif

/// What /proc shows of a running process: its threads by name and its open descriptors.
public enum ProcessTasks {
    /// The entries of a /proc directory whose names are numbers (tasks, descriptors).
    static func numberedEntries(_ directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name.first?.isNumber == true { names.append(name) }
        }
        return names
    }

    /// How many threads of process `pid` ("self" for this one) are named `name`
    /// (/proc/PID/task/TID/comm, what `pthread_setname_np` sets).
    public static func threads(of pid: String = "self", named name: String) -> Int {
        numberedEntries("/proc/\(pid)/task").filter { readTextFile("/proc/\(pid)/task/\($0)/comm") == name + "\n" }.count
    }

    /// The open descriptors of process `pid`, each with what it refers to (`anon_inode:[eventfd]`,
    /// `socket:[…]`, a path).
    public static func descriptors(of pid: String = "self") -> [Int32: String] {
        var table: [Int32: String] = [:]
        for name in numberedEntries("/proc/\(pid)/fd") {
            var buffer = [CChar](repeating: 0, count: 4096)
            let n = readlink("/proc/\(pid)/fd/\(name)", &buffer, buffer.count - 1)
            guard n >= 0, let fd = Int32(name) else { continue }
            table[fd] = String(cString: buffer)
        }
        return table
    }
}
