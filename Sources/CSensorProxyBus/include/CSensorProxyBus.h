// The net.hadess.SensorProxy object on the system bus through libsystemd's sd-bus: the vtable
// is built from sd-bus's C macros here, and the daemon (Swift) drives it from its epoll loop.
#ifndef CSENSORPROXYBUS_H
#define CSENSORPROXYBUS_H

#include <stdint.h>

/// A client called ClaimAccelerometer (`claim` 1) or ReleaseAccelerometer (`claim` 0);
/// `sender` is its unique bus name (":1.42").
typedef void (*csp_claim_fn)(void *context, const char *sender, int claim);
/// A unique bus name left the bus (NameOwnerChanged with an empty new owner).
typedef void (*csp_vanished_fn)(void *context, const char *name);

typedef struct csp_bus csp_bus;

/// Connects to the system bus (`DBUS_SYSTEM_BUS_ADDRESS` or the default socket), publishes
/// /net/hadess/SensorProxy with the accelerometer part of net.hadess.SensorProxy, watches
/// NameOwnerChanged and requests `name`. Returns 0 and the bus in `*out`, or a negative errno
/// (-EEXIST: the name has another owner) with `*out` NULL.
int csp_open(csp_bus **out, const char *name, csp_claim_fn claim, csp_vanished_fn vanished, void *context);
/// Releases the name and closes the connection; NULL is ignored.
void csp_close(csp_bus *bus);

/// The descriptor to poll, the poll(2) events wanted (POLLIN/POLLOUT, equal to EPOLLIN/EPOLLOUT),
/// and the CLOCK_MONOTONIC deadline in microseconds (UINT64_MAX: none); negative errno on error.
int csp_fd(csp_bus *bus);
int csp_events(csp_bus *bus);
int csp_timeout(csp_bus *bus, uint64_t *usec);
/// Handles everything the bus has for us (sd_bus_process until idle). 0, or a negative errno
/// when the connection is lost.
int csp_process(csp_bus *bus);
/// Sets the properties and sends one PropertiesChanged naming those that changed (none: nothing
/// is sent). `orientation` and `tilt` are copied (at most 15 bytes each). 0 or negative errno.
int csp_set(csp_bus *bus, int has_accelerometer, const char *orientation, const char *tilt);

#endif
