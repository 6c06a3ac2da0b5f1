package versions

import "tandem/core"

// Rules are the limits and patterns the API document names ("versions.MaxUpdateMessage"):
// it states them by reading these, so a rule is written once, here.
var Rules = core.Rules{
	Limits: map[string]int{
		"MaxUpdateMessage": MaxUpdateMessage,
		"MaxReleaseNotes":  MaxReleaseNotes,
		"MaxDownloadURL":   MaxDownloadURL,
		"MaxUserID":        MaxUserID,
		"MaxDeviceField":   MaxDeviceField,
		"MaxBuildNumber":   MaxBuildNumber,
	},
	Patterns: map[string]string{
		"DownloadURLPattern": DownloadURLPattern,
	},
}
