package krewmanifest

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"sigs.k8s.io/yaml"
)

// missingArchive marks, inside RenderAvailable, a platform whose archive was
// not built; it can never be a real URI.
const missingArchive = "missing:archive"

// RenderAvailable is Render for a partial build (for example the host's
// platform only, as the install test builds): platforms whose archive is not
// in archiveDir are left out of the manifest instead of failing it. The
// result is re-encoded YAML (template comments and layout are not kept). It
// returns an error when no platform has an archive.
func RenderAvailable(tmpl []byte, tag, archiveDir, uriBase string) ([]byte, error) {
	out, err := render(tmpl, tag, func(releaseURL, tag string) (string, error) {
		s, err := localURIAndSha(releaseURL, tag, archiveDir, uriBase)
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Sprintf("uri: %s\n    sha256: %s", missingArchive, missingArchive), nil
		}
		return s, err
	})
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := yaml.Unmarshal(out, &doc); err != nil {
		return nil, fmt.Errorf("rendered manifest: %w", err)
	}
	spec, _ := doc["spec"].(map[string]any)
	platforms, _ := spec["platforms"].([]any)
	var kept []any
	for _, p := range platforms {
		if m, ok := p.(map[string]any); ok && !strings.HasPrefix(fmt.Sprint(m["uri"]), missingArchive) {
			kept = append(kept, p)
		}
	}
	if len(kept) == 0 {
		return nil, fmt.Errorf("no platform's archive is in %s", archiveDir)
	}
	spec["platforms"] = kept
	return yaml.Marshal(doc)
}
