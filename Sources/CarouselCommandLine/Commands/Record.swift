import CarouselProtocol
import IIOSensors

/// `carouselctl record`: Record sensor samples to a native CSV file.
enum RecordCommand {
    static let spec = CommandSpec(
        name: "record",
        summary: "Record sensor samples to a native CSV file.",
        discussion: """
        Reads the IIO sensor (as carouseld would: scale, offset, mount matrix and accel \
        convention applied, no user calibration) and writes the native CSV (see carouselctl(1), record). \
        The file is written as FILE.partial-PID and renamed to FILE when the recording ends \
        (duration reached, SIGINT/SIGTERM, or sensor unplugged), so FILE is never half-written. \
        '--output -' streams rows to standard output instead. Exit 69 when no sensor is present.
        """,
        options: [
            OptionSpec("--output", short: "-o", value: "FILE", help: "Output CSV file, or - for standard output (required)."),
            OptionSpec("--duration", value: "SECONDS", help: "Stop after this many seconds (default: until SIGINT/SIGTERM)."),
            OptionSpec("--sensor", value: "NAME", help: "The accelerometer as [sensor] device names it: name, label, sysfs path, iio:deviceN, /dev/iio:deviceN, display or base (default: the selection rule)."),
            OptionSpec("--uri", value: "URI", help: "libiio context URI (default local:)."),
            OptionSpec("--rate", value: "HZ", help: "Requested sample rate in Hz (default 100)."),
            OptionSpec("--mode", value: "MODE", help: "auto, buffered or polled (default auto)."),
            OptionSpec("--accel-convention", value: "C", help: "gravity (default) or specific-force."),
            OptionSpec("--hotplug", help: "Keep recording across unplug/replug instead of ending at removal."),
        ],
        run: { args, io in try RecordSession.run(args, io: io) }
    )
}
