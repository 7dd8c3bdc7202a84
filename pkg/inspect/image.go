package inspect

// LacksShell reports whether the audit rates image as shipping neither a
// shell nor a sleep binary (distroless, scratch, static images; :debug
// variants excepted), the rule of prestop-sleep-binary-missing. Fixes must
// not add an exec sleep to such an image.
func LacksShell(image string) bool { return noShellImage(image) }
