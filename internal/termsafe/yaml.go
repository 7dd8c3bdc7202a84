package termsafe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// MarshalYAML returns v (anything encoding/json takes: its json tags name
// the keys, as with sigs.k8s.io/yaml) as YAML in which no unsafe rune (see
// Unsafe) appears raw: every string holding one is written double-quoted,
// with YAML's escapes (\e, \x9b, \u202e). The values decode unchanged. It
// never fails on the text itself (a YAML emitter refuses control
// characters otherwise); errors are those of json.Marshal.
func MarshalYAML(v any) ([]byte, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	// Raw C1 controls would stop the YAML reader: hand it escapes (JSON
	// is YAML; \U, not surrogate pairs, above U+FFFF).
	var doc yaml.Node
	if err := yaml.Unmarshal(escapeRunes(data, appendYAMLEscape), &doc); err != nil {
		return nil, err
	}
	quoteUnsafe(&doc)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	enc.CompactSeqIndent()
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	// Rewrite the unsafe runes the emitter leaves raw (it counts format
	// characters such as U+202E as printable) as escapes: quoteUnsafe put
	// every string holding one in double quotes, where \u is an escape, and
	// keys and structure are ASCII.
	return escapeRunes(buf.Bytes(), appendYAMLEscape), nil
}

// quoteUnsafe marks every string scalar holding an unsafe rune as
// double-quoted, the only YAML style with escapes, and lets the emitter
// choose the style of the others. JSON's flow-style collections become
// block style as sigs.k8s.io/yaml writes them, except empty ones ([], {}).
func quoteUnsafe(n *yaml.Node) {
	switch {
	case n.Kind == yaml.ScalarNode && n.Tag == "!!str" && strings.IndexFunc(n.Value, Unsafe) >= 0:
		n.Style = yaml.DoubleQuotedStyle
	case n.Kind == yaml.ScalarNode:
		n.Style = 0
	case len(n.Content) > 0:
		n.Style = 0
	}
	for _, c := range n.Content {
		quoteUnsafe(c)
	}
}

// appendYAMLEscape writes r as \uXXXX, or \UXXXXXXXX above U+FFFF.
func appendYAMLEscape(out []byte, r rune) []byte {
	if r > 0xffff {
		return fmt.Appendf(out, `\U%08x`, r)
	}
	return fmt.Appendf(out, `\u%04x`, r)
}
