package main

import (
	"fmt"
	"slices"
	"strings"
)

// validateOutput returns an error unless value (-o, --output) is one of
// formats, the formats command supports; "" among them means the flag may
// be left out.
func validateOutput(command, value string, formats ...string) error {
	if slices.Contains(formats, value) {
		return nil
	}
	var named []string
	for _, f := range formats {
		if f != "" {
			named = append(named, f)
		}
	}
	use := strings.Join(named, ", ")
	if slices.Contains(formats, "") {
		use += ", or leave it out"
	}
	return fmt.Errorf("--output %q is not supported for %s: use %s", value, command, use)
}
