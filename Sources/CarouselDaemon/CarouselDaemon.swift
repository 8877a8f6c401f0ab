// CarouselDaemon: event loop, socket server, configuration, systemd integration.
import CarouselProtocol
