// Package checkdocs writes the part of docs/audit.md that lists the audit's
// checks, from the catalogue in pkg/inspect, so that a new check needs no
// hand edit of the docs (README.md links to that list, it does not repeat it). `make docs` (hack/checkdocs) applies
// it; a test fails while the committed files differ from its output.
package checkdocs

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kubectl-graceful/kubectl-graceful/pkg/inspect"
)

// A generated block sits between these two lines, with the block's name.
const (
	beginFormat = "<!-- BEGIN GENERATED %s: edit pkg/inspect, then run make docs -->"
	endFormat   = "<!-- END GENERATED %s -->"
)

// block is one generated region of one file.
type block struct {
	file, name string
	render     func() string
}

// blocks are every generated region, by file relative to the repository root.
var blocks = []block{
	{filepath.Join("docs", "audit.md"), "checks", func() string { return Table("#") + "\n" + Sections() }},
}

// Table returns the markdown table of every check: ID linked to
// linkPrefix+ID, default severity and summary.
func Table(linkPrefix string) string {
	var b strings.Builder
	b.WriteString("| check | default severity | what it finds |\n|---|---|---|\n")
	for _, c := range inspect.Checks() {
		fmt.Fprintf(&b, "| [`%s`](%s%s) | %s | %s |\n", c.ID, linkPrefix, c.ID, c.Severity, cell(c.Summary))
	}
	return b.String()
}

// Sections returns one `### ID` section per check (severity, summary, why,
// fix, source) under a `##` heading per topic.
func Sections() string {
	var b strings.Builder
	topic := inspect.Topic(-1)
	for _, c := range inspect.Checks() {
		if c.Topic != topic {
			topic = c.Topic
			fmt.Fprintf(&b, "## %s\n\n", topic)
		}
		d := c.Explanation
		fmt.Fprintf(&b, "### %s\n\nSeverity: %s. %s.\n\n- Why: %s\n- Fix: %s\n- Source: %s\n\n",
			c.ID, c.Severity, c.Summary, d.Why, d.Fix, d.Source)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// cell escapes the one character that ends a markdown table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// Render returns the new contents of every file holding a generated block,
// read from the repository at root, keyed by path relative to root. Files
// whose markers are missing or out of order are an error.
func Render(root string) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, bl := range blocks {
		cur, ok := out[bl.file]
		if !ok {
			data, err := os.ReadFile(filepath.Join(root, bl.file))
			if err != nil {
				return nil, err
			}
			cur = data
		}
		next, err := replace(string(cur), bl.name, bl.render())
		if err != nil {
			return nil, fmt.Errorf("%s: %v", bl.file, err)
		}
		out[bl.file] = []byte(next)
	}
	return out, nil
}

// replace puts body between the begin and end markers of block name.
func replace(content, name, body string) (string, error) {
	begin, end := fmt.Sprintf(beginFormat, name), fmt.Sprintf(endFormat, name)
	i := strings.Index(content, begin)
	j := strings.Index(content, end)
	if i < 0 || j < i {
		return "", fmt.Errorf("markers of generated block %q missing or out of order (%s ... %s)", name, begin, end)
	}
	return content[:i] + begin + "\n" + body + content[j:], nil
}
