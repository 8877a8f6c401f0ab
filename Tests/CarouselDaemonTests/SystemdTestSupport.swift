import CLinux
import CarouselTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Helpers for the service tests (configuration, command line, systemd units, install):
/// running a program, temporary directories, Unix sockets. Foundation-free, like the daemon.
enum ServiceTestSupport {
    struct ProcessResult {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

    /// A new empty directory under /tmp.
    static func temporaryDirectory() -> String {
        var template = Array("/tmp/carouseld-service-test-XXXXXX".utf8CString)
        guard let result = mkdtemp(&template) else { return "/tmp" }
        return String(cString: result)
    }

    /// Writes `text` to `path` (creating or truncating it).
    @discardableResult
    static func writeFile(_ path: String, _ text: String, mode: mode_t = 0o644) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == bytes.count
    }

    static func fileExists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// Permission bits of `path`, or nil.
    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }

    /// Runs `arguments[0]` (searched in PATH) with `arguments`, in `directory`, and waits.
    /// stdout and stderr go through files so that neither pipe can fill up and block.
    static func run(_ arguments: [String], in directory: String? = nil,
                    environment extra: [String: String] = [:]) -> ProcessResult {
        let scratch = temporaryDirectory()
        let outPath = scratch + "/stdout", errPath = scratch + "/stderr"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        // posix_spawn_file_actions_addchdir_np is not in Swift's Glibc module: let sh change directory.
        let arguments = directory.map { ["/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", $0] + arguments } ?? arguments

        var environment: [String] = []
        var index = 0
        while let entry = environ[index] {
            let text = String(cString: entry)
            let name = String(text.prefix { $0 != "=" })
            if extra[name] == nil { environment.append(text) }
            index += 1
        }
        for (name, value) in extra { environment.append(name + "=" + value) }

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, arguments[0], &actions, nil, argv, envp)
        guard spawned == 0 else {
            return ProcessResult(status: -1, standardOutput: "",
                                 standardError: "cannot start \(arguments[0]): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // WIFEXITED/WEXITSTATUS are macros Swift does not import.
        let exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return ProcessResult(status: exitStatus,
                             standardOutput: readTextFile(outPath) ?? "",
                             standardError: readTextFile(errPath) ?? "")
    }

    /// A Unix socket of `type` bound to `path`; listening when `listen` is set. Returns the fd.
    static func unixSocket(path: String, type: Int32, listen shouldListen: Bool) -> Int32 {
        let fd = socket(AF_UNIX, type | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return -1 }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let pathBytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (i, byte) in pathBytes.prefix(buffer.count - 1).enumerated() { buffer[i] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else { close(fd); return -1 }
        if shouldListen && listen(fd, 4) != 0 { close(fd); return -1 }
        return fd
    }
}
