import CarouselMQTT
#if canImport(Glibc)
import Glibc
#endif

exit(BridgeCommandLine.main(Array(CommandLine.arguments.dropFirst())).rawValue)
