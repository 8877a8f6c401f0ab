#if canImport(Glibc)
import Glibc
#endif
/// Temporary: defaults only (the INI reader, CarouselINI, is not on this branch yet); for a
/// manual run, CAROUSEL_MQTT_SOCKET and CAROUSEL_MQTT_PORT override the socket and port.
public enum BridgeConfigurationLoader {
    public static func load(path: String, hostName: String) throws(BridgeConfigurationError) -> BridgeConfiguration {
        var c = BridgeConfiguration(deviceID: hostName)
        if let s = getenv("CAROUSEL_MQTT_SOCKET") { c.socketPath = String(cString: s) }
        if let p = getenv("CAROUSEL_MQTT_PORT") { c.brokerPort = Int(String(cString: p)) }
        c.brokerReconnectMaximumSeconds = 2
        return c
    }
    public static func readPassword(_ path: String, configPath: String) throws(BridgeConfigurationError) -> String { "" }
}
