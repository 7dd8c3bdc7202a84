// Package version holds the build's version, stamped at link time.
//
// Release builds set these with -ldflags, for example:
//
//	-X github.com/kubectl-graceful/kubectl-graceful/internal/version.Version=v0.1.0
package version

import "runtime"

// Version is the release tag (for example "v0.1.0"); "dev" in unstamped builds.
var Version = "dev"

// Commit is the git commit the binary was built from; "unknown" when unstamped.
var Commit = "unknown"

// Date is the build time in RFC 3339 (UTC); "unknown" when unstamped.
var Date = "unknown"

// Info is the version as printed by `kubectl graceful version -o json`.
type Info struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	Date      string `json:"date"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
}

// Get returns the stamped build information of this binary.
func Get() Info {
	return Info{
		Version:   Version,
		Commit:    Commit,
		Date:      Date,
		GoVersion: runtime.Version(),
		Platform:  runtime.GOOS + "/" + runtime.GOARCH,
	}
}
