// libmosquitto 2.0 (Debian libmosquitto-dev): the MQTT client library carousel-mqtt uses.
#include <mosquitto.h>
