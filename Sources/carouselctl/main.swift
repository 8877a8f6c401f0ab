#if canImport(Glibc)
import Glibc
#endif
import CarouselCommandLine

// A reader that goes away (`carouselctl watch | head`) must end the program with EPIPE, not kill it.
signal(SIGPIPE, SIG_IGN)
exit(Carouselctl.main(Array(CommandLine.arguments.dropFirst()), io: .process()).rawValue)
