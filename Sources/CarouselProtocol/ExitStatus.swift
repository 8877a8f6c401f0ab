/// Process exit statuses shared by `carouseld` and `carouselctl` (docs/CLI.md "EXIT STATUS" and
/// docs/SERVICE.md "Exit statuses"), from BSD's
/// `sysexits.h` so that systemd and shell scripts can tell the cases apart.
public enum ExitStatus: Int32, Sendable, CaseIterable {
    /// Success.
    case ok = 0
    /// A failure with no more specific status.
    case failure = 1
    /// Command-line usage error (EX_USAGE).
    case usage = 64
    /// Bad input data, including a calibration refused because the device moved (EX_DATAERR).
    case dataError = 65
    /// An input file does not exist or cannot be opened (EX_NOINPUT).
    case noInput = 66
    /// The daemon or the sensor is unavailable; the socket is served by a live daemon (EX_UNAVAILABLE).
    case unavailable = 69
    /// An internal error (EX_SOFTWARE).
    case software = 70
    /// An I/O error (EX_IOERR).
    case ioError = 74
    /// Permission denied (EX_NOPERM).
    case noPermission = 77
    /// Configuration error; `carouseld.service` does not restart on it (EX_CONFIG).
    case configuration = 78
}
