// swift-tools-version:6.0
// carouseld: IIO motion sensors -> tilt fusion -> card-carousel engine -> Unix-socket clients.
// Module boundaries and what each may import: see docs/ARCHITECTURE.md "Modules (SwiftPM targets)".
import PackageDescription

let package = Package(
    name: "carouseld",
    products: [
        .executable(name: "carouseld", targets: ["carouseld"]),
        .executable(name: "carouselctl", targets: ["carouselctl"]),
        .executable(name: "carousel-bench", targets: ["carousel-bench"]),
        .executable(name: "carousel-mqtt", targets: ["carousel-mqtt"]),
        .library(name: "CarouselEngine", targets: ["CarouselEngine"]),
        .library(name: "MotionFusion", targets: ["MotionFusion"]),
    ],
    targets: [
        // C libraries from Debian, one module each; only the wrapping Swift module imports it.
        .systemLibrary(name: "CLibIIO", pkgConfig: "libiio", providers: [.apt(["libiio-dev"])]),
        .systemLibrary(name: "CLibUdev", pkgConfig: "libudev", providers: [.apt(["libudev-dev"])]),
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        .systemLibrary(name: "CInih", pkgConfig: "inih", providers: [.apt(["libinih-dev"])]),
        .systemLibrary(name: "CUmockdev", pkgConfig: "umockdev-1.0", providers: [.apt(["libumockdev-dev"])]),
        .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
        // epoll, signalfd, timerfd, SO_PEERCRED helpers that Glibc's Swift overlay lacks.
        .target(name: "CLinux"),
        // net.hadess.SensorProxy through sd-bus: its vtable is C macros, so it is built in C.
        .target(name: "CSensorProxyBus", linkerSettings: [.linkedLibrary("systemd")]),
        // Typed system calls both the daemon and the sensor layer use: Errno, SystemError, Epoll,
        // and the injected monotonic clock.
        .target(name: "CarouselPosix", dependencies: ["CLinux"]),
        // Logging (journald priority prefixes, repeated-line limiting) and sd-notify/watchdog,
        // shared by carouseld and the bridges so that a bridge depends on the protocol, not on the server.
        .target(name: "CarouselService", dependencies: ["CarouselPosix", "CSystemd"]),
        // INI text through libinih, with each key's line number; generic, no Foundation.
        .target(name: "CarouselINI", dependencies: ["CInih", "CarouselPosix"]),

        // Pure libraries: no I/O, no clock, no Foundation.
        .target(name: "CarouselEngine"),
        .target(name: "MotionFusion"),

        .target(name: "IIOSensors", dependencies: ["MotionFusion", "CarouselPosix", "CarouselService", "CLibIIO", "CLibUdev", "CLinux"]),
        .target(name: "CarouselProtocol", dependencies: ["CarouselEngine", "MotionFusion"]),
        // The configuration file's model, keys and loader, shared by carouseld and carouselctl.
        .target(name: "CarouselConfig", dependencies: [
            "CarouselEngine", "MotionFusion", "IIOSensors", "CarouselProtocol", "CarouselINI",
        ]),
        .target(name: "CarouselDaemon", dependencies: [
            "CarouselEngine", "MotionFusion", "IIOSensors", "CarouselProtocol", "CarouselConfig",
            "CarouselPosix", "CarouselService", "CSystemd", "CLinux", "CSensorProxyBus",
        ]),
        // Argument parsing and the carouselctl subcommands, as a library so tests call them in-process.
        .target(name: "CarouselCommandLine", dependencies: [
            "CarouselEngine", "MotionFusion", "IIOSensors", "CarouselProtocol", "CarouselConfig", "CarouselPosix", "CarouselService", "CLinux",
        ]),

        // The MQTT bridge (docs/MQTT.md): libmosquitto's thin wrapper, the bridge, its main.
        .target(name: "Mosquitto", dependencies: ["CMosquitto"]),
        .target(name: "CarouselMQTT", dependencies: ["Mosquitto", "CarouselINI", "CarouselProtocol", "CarouselService", "CLinux"]),
        .executableTarget(name: "carousel-mqtt", dependencies: ["CarouselMQTT"]),

        .executableTarget(name: "carouseld", dependencies: ["CarouselDaemon", "CarouselPosix"]),
        .executableTarget(name: "carouselctl", dependencies: ["CarouselCommandLine"]),
        // CUmockdev: the daemon benchmark drives a umockdev testbed (PTY-backed accelerometer).
        .executableTarget(name: "carousel-bench", dependencies: [
            "CarouselEngine", "MotionFusion", "IIOSensors", "CarouselProtocol", "CarouselConfig", "CarouselDaemon",
            "CarouselPosix", "CLinux", "CUmockdev",
        ]),

        // Test doubles and helpers: paths to ../shared, spawning built binaries, umockdev testbeds.
        .target(name: "CarouselTestSupport", dependencies: [
            "MotionFusion", "CarouselProtocol", "CarouselPosix", "CarouselService", "CUmockdev", "CLinux",
        ]),

        .testTarget(name: "CarouselINITests", dependencies: ["CarouselINI"]),
        .testTarget(name: "CarouselEngineTests", dependencies: ["CarouselEngine", "CarouselTestSupport"]),
        .testTarget(name: "MotionFusionTests", dependencies: ["MotionFusion", "CarouselTestSupport"]),
        .testTarget(name: "IIOSensorsTests", dependencies: ["IIOSensors", "CarouselTestSupport"]),
        .testTarget(name: "CarouselProtocolTests", dependencies: ["CarouselProtocol", "CarouselTestSupport"]),
        .testTarget(name: "CarouselDaemonTests", dependencies: [
            "CarouselDaemon", "CarouselConfig", "CarouselService", "CarouselTestSupport", "carouseld", "carouselctl",
        ]),
        .testTarget(name: "CarouselMQTTTests", dependencies: [
            "CarouselMQTT", "Mosquitto", "CarouselProtocol", "CarouselEngine", "CarouselService", "CarouselTestSupport", "carousel-mqtt", "carouseld",
        ]),
        .testTarget(name: "CarouselCommandLineTests", dependencies: [
            "CarouselCommandLine", "CarouselTestSupport", "carouselctl",
        ]),
    ],
    swiftLanguageModes: [.v6]
)

// libFuzzer targets (docs/PERFORMANCE.md "Fuzzing"): declared only when CAROUSELD_FUZZ=1, which
// scripts/fuzz sets when it builds them with -sanitize=fuzzer,address into .build/fuzz. They have
// no main (libFuzzer supplies it), so the normal `swift build` and `swift test` must not see them.
// Each calls one public entry point: a renamed internal needs no change here.
if Context.environment["CAROUSELD_FUZZ"] == "1" {
    package.targets.append(.target(name: "CFuzzDriver", path: "Fuzz/CFuzzDriver"))
    package.targets.append(.target(name: "FuzzSupport", dependencies: ["CFuzzDriver"], path: "Fuzz/FuzzSupport"))
    let fuzzTargets: [(name: String, dependencies: [Target.Dependency])] = [
        ("FuzzWireJSON", ["CarouselProtocol"]),
        ("FuzzRequestDecoder", ["CarouselProtocol"]),
        ("FuzzCalibrationFile", ["MotionFusion"]),
        ("FuzzRecordingLines", ["MotionFusion"]),
        ("FuzzMountMatrix", ["MotionFusion"]),
        ("FuzzScanElementType", ["IIOSensors"]),
        ("FuzzConfigurationFile", ["CarouselConfig", "CarouselEngine", "CarouselProtocol"]),
        ("FuzzScenario", ["CarouselCommandLine", "CarouselProtocol"]),
    ]
    for target in fuzzTargets {
        package.targets.append(.executableTarget(
            name: target.name, dependencies: target.dependencies + ["FuzzSupport"], path: "Fuzz/\(target.name)",
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]))
        package.products.append(.executable(name: target.name, targets: [target.name]))
    }
}
