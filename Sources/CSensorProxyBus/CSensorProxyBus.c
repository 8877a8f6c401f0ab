// See include/CSensorProxyBus.h. Property values live here, so the getters need no call into
// Swift; method calls and vanished peers are handed to Swift through the callbacks.
#include "CSensorProxyBus.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#define CSP_PATH "/net/hadess/SensorProxy"
#define CSP_INTERFACE "net.hadess.SensorProxy"

struct csp_bus {
    sd_bus *bus;
    sd_bus_slot *object;
    sd_bus_slot *match;
    csp_claim_fn claim;
    csp_vanished_fn vanished;
    void *context;
    int has_accelerometer;
    char orientation[16];
    char tilt[16];
};

static int get_has_accelerometer(sd_bus *b, const char *path, const char *interface, const char *property,
                                 sd_bus_message *reply, void *userdata, sd_bus_error *error) {
    struct csp_bus *self = userdata;
    return sd_bus_message_append(reply, "b", self->has_accelerometer);
}

static int get_orientation(sd_bus *b, const char *path, const char *interface, const char *property,
                           sd_bus_message *reply, void *userdata, sd_bus_error *error) {
    struct csp_bus *self = userdata;
    return sd_bus_message_append(reply, "s", self->orientation);
}

static int get_tilt(sd_bus *b, const char *path, const char *interface, const char *property,
                    sd_bus_message *reply, void *userdata, sd_bus_error *error) {
    struct csp_bus *self = userdata;
    return sd_bus_message_append(reply, "s", self->tilt);
}

/// Sensors carouseld does not serve: present as properties (clients such as monitor-sensor and
/// gsd-power read them unconditionally) and always absent.
static int get_false(sd_bus *b, const char *path, const char *interface, const char *property,
                     sd_bus_message *reply, void *userdata, sd_bus_error *error) {
    return sd_bus_message_append(reply, "b", 0);
}

static int get_lux(sd_bus *b, const char *path, const char *interface, const char *property,
                   sd_bus_message *reply, void *userdata, sd_bus_error *error) {
    return sd_bus_message_append(reply, "s", "lux");
}

static int get_zero(sd_bus *b, const char *path, const char *interface, const char *property,
                    sd_bus_message *reply, void *userdata, sd_bus_error *error) {
    return sd_bus_message_append(reply, "d", 0.0);
}

/// ClaimLight, ReleaseLight, ClaimProximity, ReleaseProximity: accepted and without effect. The
/// interface lets a client claim a sensor that is absent (it would appear later); clients such
/// as monitor-sensor claim every sensor unconditionally and give up when a claim fails.
static int method_absent_sensor(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    return sd_bus_reply_method_return(m, "");
}

static int method_claim(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    struct csp_bus *self = userdata;
    const char *sender = sd_bus_message_get_sender(m);
    if (sender) self->claim(self->context, sender, 1);
    return sd_bus_reply_method_return(m, "");
}

static int method_release(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    struct csp_bus *self = userdata;
    const char *sender = sd_bus_message_get_sender(m);
    if (sender) self->claim(self->context, sender, 0);
    return sd_bus_reply_method_return(m, "");
}

static const sd_bus_vtable sensor_proxy_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_PROPERTY("HasAccelerometer", "b", get_has_accelerometer, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("AccelerometerOrientation", "s", get_orientation, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("AccelerometerTilt", "s", get_tilt, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("HasAmbientLight", "b", get_false, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("LightLevelUnit", "s", get_lux, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("LightLevel", "d", get_zero, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("HasProximity", "b", get_false, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_PROPERTY("ProximityNear", "b", get_false, 0, SD_BUS_VTABLE_PROPERTY_CONST),
    SD_BUS_METHOD("ClaimAccelerometer", "", "", method_claim, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("ReleaseAccelerometer", "", "", method_release, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("ClaimLight", "", "", method_absent_sensor, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("ReleaseLight", "", "", method_absent_sensor, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("ClaimProximity", "", "", method_absent_sensor, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("ReleaseProximity", "", "", method_absent_sensor, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_VTABLE_END
};

static int name_owner_changed(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    struct csp_bus *self = userdata;
    const char *name = NULL, *old_owner = NULL, *new_owner = NULL;
    if (sd_bus_message_read(m, "sss", &name, &old_owner, &new_owner) < 0) return 0;
    if (name && name[0] == ':' && (!new_owner || new_owner[0] == '\0')) self->vanished(self->context, name);
    return 0;
}

int csp_open(csp_bus **out, const char *name, csp_claim_fn claim, csp_vanished_fn vanished, void *context) {
    *out = NULL;
    struct csp_bus *self = calloc(1, sizeof *self);
    if (!self) return -ENOMEM;
    self->claim = claim;
    self->vanished = vanished;
    self->context = context;
    strcpy(self->orientation, "undefined");
    strcpy(self->tilt, "vertical");
    int r = sd_bus_open_system(&self->bus);
    if (r >= 0) r = sd_bus_add_object_vtable(self->bus, &self->object, CSP_PATH, CSP_INTERFACE, sensor_proxy_vtable, self);
    if (r >= 0)
        r = sd_bus_match_signal(self->bus, &self->match, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                "org.freedesktop.DBus", "NameOwnerChanged", name_owner_changed, self);
    if (r >= 0) r = sd_bus_request_name(self->bus, name, 0);
    if (r < 0) {
        csp_close(self);
        return r;
    }
    *out = self;
    return 0;
}

void csp_close(csp_bus *self) {
    if (!self) return;
    sd_bus_slot_unref(self->match);
    sd_bus_slot_unref(self->object);
    if (self->bus) sd_bus_flush_close_unref(self->bus);
    free(self);
}

int csp_fd(csp_bus *self) { return sd_bus_get_fd(self->bus); }

int csp_events(csp_bus *self) { return sd_bus_get_events(self->bus); }

int csp_timeout(csp_bus *self, uint64_t *usec) { return sd_bus_get_timeout(self->bus, usec); }

int csp_process(csp_bus *self) {
    for (;;) {
        int r = sd_bus_process(self->bus, NULL);
        if (r < 0) return r;
        if (r == 0) return 0;
    }
}

static bool copy_changed(char *field, size_t size, const char *value) {
    if (!value || strcmp(field, value) == 0) return false;
    strncpy(field, value, size - 1);
    field[size - 1] = '\0';
    return true;
}

int csp_set(csp_bus *self, int has_accelerometer, const char *orientation, const char *tilt) {
    const char *changed[4];
    size_t n = 0;
    if ((has_accelerometer != 0) != (self->has_accelerometer != 0)) {
        self->has_accelerometer = has_accelerometer != 0;
        changed[n++] = "HasAccelerometer";
    }
    if (copy_changed(self->orientation, sizeof self->orientation, orientation)) changed[n++] = "AccelerometerOrientation";
    if (copy_changed(self->tilt, sizeof self->tilt, tilt)) changed[n++] = "AccelerometerTilt";
    if (n == 0) return 0;
    changed[n] = NULL;
    return sd_bus_emit_properties_changed_strv(self->bus, CSP_PATH, CSP_INTERFACE, (char **)changed);
}
