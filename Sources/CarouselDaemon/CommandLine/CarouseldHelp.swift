import CarouselService

extension CarouseldCommandLine {
    /// The `--help` text, laid out like a man page; it names the reference pages where they are
    /// installed (`ReferencePages`).
    public static let helpText = """
    NAME
        carouseld - motion-sensor card-carousel daemon

    SYNOPSIS
        carouseld [-c|--config PATH] [--socket PATH] [-f|--foreground] [-v|--verbose]
        carouseld [-c|--config PATH] --check-config
        carouseld --help | --version

    DESCRIPTION
        carouseld reads an IIO accelerometer (and gyroscope, when there is one), estimates
        the device's tilt, drives a card carousel with it and publishes the carousel's
        state to display clients as newline-delimited JSON on a Unix socket. Clients can
        also send touch, scroll and geometry commands over the same socket. See
        carouseld.conf(5) for every setting and
        \(ReferencePages.current.page("PROTOCOL.md")) for the protocol.

        The sensor is read only while a client watches (unless [sensor] always_on = yes);
        an idle carousel sends nothing and the daemon makes no periodic wake-ups except
        the systemd watchdog ping.

        carouseld does not fork. Under systemd it runs as Type=notify: it reports READY=1
        once the socket listens, STATUS= lines, and WATCHDOG=1 when WatchdogSec= is set.
        With carouseld.socket it takes the listening socket from systemd (LISTEN_FDS)
        instead of binding [server] socket itself.

    OPTIONS
        -c, --config PATH
            Read the configuration from PATH (INI). Default: /etc/carouseld/carouseld.conf.
            When the default file does not exist, built-in defaults are used; a file named
            with --config must exist (exit 66 otherwise).

        --check-config
            Validate the configuration (syntax, every key and value, that a replay file
            exists and can play, that the geometry shows at most 338 items, and that the
            file is not empty or cut off), print the verdict and exit: 0 when valid, 78
            when not (66 when the file given with --config does not exist). Start-up and
            every reload apply exactly these checks.

        --socket PATH
            Listen on PATH instead of [server] socket (an absolute path). Ignored when
            systemd passes a socket.

        -f, --foreground
            Write log lines for a terminal ("carouseld: warning: ...") instead of the
            journald priority prefixes ("<4>..."); they are so without it too when standard
            error is a terminal. carouseld never detaches either way.

        -v, --verbose
            Also log debug lines.

        -h, --help
            Show this text and exit.

        -V, --version
            Show the release and protocol version and exit.

    SIGNALS
        SIGHUP     Reload the configuration and calibration; a file --check-config refuses
                   (also an empty or cut-off one) keeps the running configuration and the
                   error is logged with its file:line.
        SIGTERM, SIGINT
                   Stop: close clients, remove the socket file (unless systemd owns it),
                   exit 0.

    FILES
        /etc/carouseld/carouseld.conf          configuration
        /var/lib/carouseld/calibration.conf    calibration written by carouselctl calibrate
        /run/carouseld/carouseld.sock          default socket

    ENVIRONMENT
        NOTIFY_SOCKET, WATCHDOG_USEC, WATCHDOG_PID, LISTEN_FDS, LISTEN_PID
            Set by systemd for notification, the watchdog and socket activation.

    EXIT STATUS
        0   success
        64  command-line usage error
        66  the configuration file given with --config does not exist
        69  the sensor or the socket is unavailable (another carouseld serves the socket)
        70  internal error
        74  I/O error
        77  permission denied
        78  configuration error (carouseld.service does not restart on it)

    EXAMPLES
        carouseld -c configs/demo.conf --socket "$demo/carouseld.sock" --foreground
            In a checkout of the source: replay the bundled recording in a loop, with the
            socket in a private folder (demo=$(mktemp -d)). In a second terminal, run
            socat - UNIX-CONNECT:"$demo/carouseld.sock"
            and type {"cmd":"watch","enable":true} to see the carousel move.

        carouseld --check-config -c /etc/carouseld/carouseld.conf

    SEE ALSO
        carouselctl(1), carouseld.conf(5), systemd.service(5), sd_notify(3),
        \(ReferencePages.current.page("SERVICE.md"))

    """
}
