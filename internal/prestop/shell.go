package prestop

import (
	"slices"
	"strings"
)

// noShellImagePatterns are substrings of image references whose images
// ship no shell and no sleep binary. One list, used by
// prestop-sleep-binary-missing; images tagged :debug (distroless debug
// variants ship busybox) are exempt.
var noShellImagePatterns = []string{
	"distroless",
	"chainguard/static",
	"cgr.dev/chainguard/static",
	"scratch",
	"-static:",
	"/static:",
	"/static-debian",
	"gcr.io/distroless/",
}

// LacksShell reports whether the audit rates image as shipping neither a
// shell nor a sleep binary (distroless, scratch, static images; :debug
// variants excepted: noShellImagePatterns), the rule of the audit's
// prestop-sleep-binary-missing. audit --fix must not add an exec sleep to
// such an image.
func LacksShell(image string) bool {
	img := strings.ToLower(image)
	if strings.Contains(img, ":debug") {
		return false
	}
	if !strings.Contains(img, ":") && !strings.Contains(img, "@") {
		img += ":"
	}
	if strings.HasSuffix(img, "-static:") || strings.Contains(img, "-static@") {
		return true
	}
	return slices.ContainsFunc(noShellImagePatterns, func(p string) bool { return strings.Contains(img, p) })
}
