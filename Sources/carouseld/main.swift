// carouseld: parse the command line, load the configuration, run the daemon (CarouselDaemon).
import CarouselDaemon
import CarouselPosix
#if canImport(Glibc)
import Glibc
#endif

// A dead client must never kill the daemon; sends also use MSG_NOSIGNAL.
signal(SIGPIPE, SIG_IGN)

let status = CarouseldCommandLine.main(
    arguments: Array(CommandLine.arguments.dropFirst()),
    output: { CarouseldCommandLine.write($0, to: STDOUT_FILENO) },
    errorOutput: { CarouseldCommandLine.write($0, to: STDERR_FILENO) },
    errorOutputIsTerminal: isatty(STDERR_FILENO) == 1)
// Not `exit`: a listing or remote-sensor thread may still be inside libiio (DetachedThread).
DetachedThread.exitProcess(status.rawValue)
