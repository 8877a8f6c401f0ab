#if canImport(Glibc)
import Glibc
#endif
import CarouselCommandLine

// Swift 6 cannot use the C global `stderr`; write(2) on the file descriptors instead.
func writeAll(_ fd: Int32, _ text: String) {
    var bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeBytes { buffer -> Int in
            guard let base = buffer.baseAddress else { return 0 }
            return write(fd, base + offset, buffer.count - offset)
        }
        if n < 0 {
            if errno == EINTR { continue }
            return
        }
        offset += n
    }
    bytes.removeAll()
}

signal(SIGPIPE, SIG_IGN)
var environment: [String: String] = [:]
var envp = environ
while let entry = envp.pointee {
    let text = String(cString: entry)
    if let eq = text.firstIndex(of: "=") {
        environment[String(text[..<eq])] = String(text[text.index(after: eq)...])
    }
    envp += 1
}
let io = CommandIO(out: { writeAll(STDOUT_FILENO, $0) }, err: { writeAll(STDERR_FILENO, $0) },
                   environment: environment)
exit(Carouselctl.main(Array(CommandLine.arguments.dropFirst()), io: io).rawValue)
