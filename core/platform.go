package core

// Platform is where the app runs: a version policy, a device and a flag's
// audience are per platform, and a subscription records where it was bought.
type Platform string

const (
	PlatformIOS     Platform = "ios"
	PlatformAndroid Platform = "android"
	PlatformWeb     Platform = "web"
)

// ParsePlatform accepts ios, android and web, exactly as written.
func ParsePlatform(s string) (Platform, error) {
	switch p := Platform(s); p {
	case PlatformIOS, PlatformAndroid, PlatformWeb:
		return p, nil
	case "":
		return "", Invalid("invalid_request", "core.platformRequiredIosAndroidWeb", "platform is required: ios, android or web")
	}
	return "", Invalid("invalid_request", "core.platformIosAndroidWeb", "platform must be ios, android or web")
}
