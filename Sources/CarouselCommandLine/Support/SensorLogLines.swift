import IIOSensors
import CarouselService

extension CommandIO {
    /// Where a sensor source's events go while a command reads a sensor: standard error, one
    /// line each, laid out for a terminal as carouseld's foreground lines are:
    /// `carouselctl: COMMAND: LEVEL: message` (`LogLevel.name`; every level is shown, since the
    /// source logs only what an operator watching the command wants to see: the read mode it
    /// chose, a stale buffer, a fallback). Not journald's `<N>` prefix: carouselctl runs on a
    /// terminal or in a script, not under systemd.
    /// - Parameter command: the subcommand's name (`record`, `calibrate`).
    func sensorLog(_ command: String) -> LogSink {
        let err = self.err
        return { level, message in err("carouselctl: \(command): \(level.name): \(message)\n") }
    }
}
