package load

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// document is one YAML document of a manifest file, as the resource
// builder splits them (a line that is "---" and blanks).
type document struct {
	file string
	// firstLine is the 1-based line of the file where data starts.
	firstLine int
	data      []byte
}

// splitDocuments cuts data at lines that are "---" followed only by
// blanks, the separator of k8s.io/apimachinery's YAML reader.
func splitDocuments(file string, data []byte) []document {
	var docs []document
	start, startLine, line := 0, 1, 1
	for i := 0; i <= len(data); {
		end := bytes.IndexByte(data[i:], '\n')
		next := len(data) + 1
		if end >= 0 {
			end += i
			next = end + 1
		} else {
			end = len(data)
		}
		if l := data[i:end]; bytes.HasPrefix(l, []byte("---")) && len(bytes.TrimSpace(l[3:])) == 0 {
			docs = append(docs, document{file: file, firstLine: startLine, data: data[start:i]})
			start, startLine = next, line+1
		}
		i, line = next, line+1
	}
	if start < len(data) {
		docs = append(docs, document{file: file, firstLine: startLine, data: data[start:]})
	}
	return docs
}

// blank reports whether d holds nothing but blanks and comments.
func (d document) blank() bool {
	for l := range strings.SplitSeq(string(d.data), "\n") {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") {
			return false
		}
	}
	return true
}

// errDuplicateKey is a document with a key twice in one mapping: YAML
// forbids it, and lenient decoders keep the last value without a word, so
// the object audited would not be the one the author reads.
type errDuplicateKey struct {
	file            string
	line, firstLine int
	key             string
}

func (e *errDuplicateKey) Error() string {
	return fmt.Sprintf("%s:%d: duplicate key %q (first at line %d)", e.file, e.line, e.key, e.firstLine)
}

// check parses d strictly. It returns an *errDuplicateKey for a repeated
// key, another error (with the file's line) for YAML that does not parse,
// and the document's node otherwise.
func (d document) check() (*yaml.Node, error) {
	var n yaml.Node
	if err := yaml.Unmarshal(d.data, &n); err != nil {
		return nil, d.parseError(err)
	}
	return &n, d.duplicates(&n)
}

func (d document) duplicates(n *yaml.Node) error {
	if n.Kind == yaml.MappingNode {
		seen := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind == yaml.ScalarNode {
				if first, ok := seen[k.Value]; ok && k.Value != "<<" {
					return &errDuplicateKey{file: d.file, line: d.firstLine + k.Line - 1, firstLine: d.firstLine + first - 1, key: k.Value}
				}
				seen[k.Value] = k.Line
			}
		}
	}
	for _, c := range n.Content {
		if err := d.duplicates(c); err != nil {
			return err
		}
	}
	return nil
}

var yamlLine = regexp.MustCompile(`line (\d+)`)

// flowName finds metadata.name written in flow style (metadata: {name: x}).
var flowName = regexp.MustCompile(`(?m)^metadata:\s*\{[^}]*\bname:\s*["']?([^"',}\s]+)`)

// kindAndName reads the kind and name of a document that may not parse,
// line by line; either is "" when not found.
func (d document) kindAndName() (kind, name string) {
	kind, name, _ = scanKindName(d.data)
	if name == "" {
		if m := flowName.FindSubmatch(d.data); m != nil {
			name = string(m[1])
		}
	}
	return kind, name
}

// expandFilenames lists the files -f names, as kubectl does: a file is
// read whatever its extension, a directory gives its .json, .yaml and .yml
// files (its whole tree with -R); "-" and URLs are returned as they are.
func expandFilenames(names []string, recursive bool) ([]string, error) {
	var out []string
	for _, name := range names {
		if name == "-" || strings.HasPrefix(name, "http://") || strings.HasPrefix(name, "https://") {
			out = append(out, name)
			continue
		}
		st, err := os.Stat(name)
		if err != nil {
			if os.IsNotExist(err) {
				return nil, fmt.Errorf("the path %q does not exist", name)
			}
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, name)
			continue
		}
		err = filepath.WalkDir(name, func(p string, e os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if e.IsDir() {
				if p != name && !recursive {
					return filepath.SkipDir
				}
				return nil
			}
			switch filepath.Ext(p) {
			case ".json", ".yaml", ".yml":
				out = append(out, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// parseError is the parser's error with the file's line and column. The
// YAML parser names the line where the block it was reading starts (an
// indentation error at line 15 in a mapping that starts at line 12 is
// "line 12") and no column, so the first line, and on it the first
// column, at which the document's text stops parsing is looked for from
// there, and named, with the block's line beside it.
func (d document) parseError(err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	m := yamlLine.FindStringSubmatch(msg)
	if m == nil {
		return fmt.Errorf("%s:%d: %s", d.file, d.firstLine, msg)
	}
	ctx, _ := strconv.Atoi(m[1])
	rest := strings.TrimPrefix(strings.TrimPrefix(msg, m[0]), ": ")
	at, col := d.problemAt(ctx)
	switch {
	case at > ctx:
		return fmt.Errorf("%s:%d:%d: %s (in the block that starts at line %d)", d.file, d.firstLine+at-1, col, rest, d.firstLine+ctx-1)
	case at == ctx:
		return fmt.Errorf("%s:%d:%d: %s", d.file, d.firstLine+at-1, col, rest)
	}
	return fmt.Errorf("%s:%d: %s", d.file, d.firstLine+ctx-1, rest)
}

// maxProblemSearchLines bounds the documents whose problem line is looked
// for (each try parses the document's first lines again).
const maxProblemSearchLines = 5000

// problemAt returns the first line (document-relative) from ctx on whose
// text up to it does not parse for a reason other than its end, and the
// first column (1-based, in characters) of that line at which the text up
// to it stops parsing; 0, 0 when there is none.
func (d document) problemAt(ctx int) (line, column int) {
	lines := strings.SplitAfter(string(d.data), "\n")
	if len(lines) > maxProblemSearchLines {
		return 0, 0
	}
	for l := max(ctx, 1); l <= len(lines); l++ {
		if stopsParsing(strings.Join(lines[:l], "")) {
			return l, problemColumn(strings.Join(lines[:l-1], ""), lines[l-1])
		}
	}
	return 0, 0
}

// problemColumn is the first column of line, after the text before it, at
// which the text stops parsing; the line's first non-blank column when no
// prefix of it does (the parser needed the whole line).
func problemColumn(before, line string) int {
	r := []rune(strings.TrimRight(line, "\n"))
	for c := 1; c <= len(r); c++ {
		if stopsParsing(before + string(r[:c])) {
			return c
		}
	}
	return len(r) - len(strings.TrimLeft(string(r), " \t")) + 1
}

// stopsParsing reports whether text does not parse for a reason other
// than its end.
func stopsParsing(text string) bool {
	var n yaml.Node
	err := yaml.Unmarshal([]byte(text), &n)
	return err != nil && !strings.Contains(err.Error(), "end of") && !strings.Contains(err.Error(), "could not find expected")
}
