package inspect

import "strings"

// at returns where a finding about field is in the file: the line of the
// field, else of the nearest field above it the file has (a missing
// preStop points at its container), else where the document starts; src
// itself when no field line is known. field is a path's tail ("spec.minReadySeconds"),
// "containers[]." and a path within the container the finding names
// ("containers[].lifecycle.preStop"), or alternatives separated by commas;
// "" is the container the finding names, or the document.
func (src *Source) at(container, field string) *Source {
	if src == nil || len(src.Fields) == 0 {
		return src
	}
	var tails []string
	for _, f := range strings.Split(field, ",") {
		if f == "" && container != "" {
			f = "containers[]"
		}
		if rest, ok := strings.CutPrefix(f, "containers[]"); ok && container != "" {
			tails = append(tails, "containers["+container+"]"+rest, "initContainers["+container+"]"+rest)
		} else if f != "" && !ok {
			tails = append(tails, f)
		}
	}
	for len(tails) > 0 {
		if line := src.shallowest(tails); line > 0 {
			return &Source{File: src.File, Line: line}
		}
		tails = parents(tails)
	}
	return &Source{File: src.File, Line: src.Line}
}

// shallowest is the line of the field, of those whose path ends in one of
// tails (at a dot), nearest the object's root; 0 when none.
func (src *Source) shallowest(tails []string) int {
	line, depth := 0, -1
	for path, l := range src.Fields {
		for _, t := range tails {
			if path != t && !strings.HasSuffix(path, "."+t) {
				continue
			}
			if d := strings.Count(path, "."); depth < 0 || d < depth {
				line, depth = l, d
			}
		}
	}
	return line
}

// parents drops the last segment of each tail, and the tails left empty.
func parents(tails []string) []string {
	var out []string
	for _, t := range tails {
		if i := strings.LastIndex(t, "."); i > 0 {
			out = append(out, t[:i])
		}
	}
	return out
}
