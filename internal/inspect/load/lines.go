package load

import (
	"bufio"
	"bytes"
	"os"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"
)

// lineIndex finds the line where each YAML document of a manifest file
// starts, so that findings (and SARIF results) point at it. The resource
// builder does not keep positions, so files are read a second time here;
// stdin is indexed from the bytes that were handed to the builder.
type lineIndex struct {
	files map[string][]docStart
	// fields are the unknown fields of the objects of a local file, nil
	// for remote input and kustomize.
	fields fieldIndex
}

type docStart struct {
	kind, name string
	line       int
	used       bool
}

func newLineIndex() *lineIndex { return &lineIndex{files: map[string][]docStart{}} }

// add indexes data as the content of file.
func (x *lineIndex) add(file string, data []byte) {
	var docs []docStart
	var cur bytes.Buffer
	start := 0
	flush := func() {
		if start == 0 {
			return
		}
		if kind, name, ok := scanKindName(cur.Bytes()); ok {
			docs = append(docs, docStart{kind: kind, name: name, line: start})
			return
		}
		var meta struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		_ = yaml.Unmarshal(cur.Bytes(), &meta)
		docs = append(docs, docStart{kind: meta.Kind, name: meta.Metadata.Name, line: start})
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1024*1024), 16*1024*1024)
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		if strings.HasPrefix(l, "---") {
			flush()
			cur.Reset()
			start = 0
			continue
		}
		t := strings.TrimSpace(l)
		if start == 0 && t != "" && !strings.HasPrefix(t, "#") {
			start = n
		}
		cur.WriteString(l)
		cur.WriteByte('\n')
	}
	flush()
	x.files[file] = docs
}

// line returns the 1-based start line of the first not yet claimed
// document of file with this kind and name; for objects that came out of a
// List it falls back to the List's line; 0 when unknown.
func (x *lineIndex) line(file, kind, name string) int {
	docs, ok := x.files[file]
	if !ok {
		data, err := os.ReadFile(file)
		if err != nil {
			return 0
		}
		x.add(file, data)
		docs = x.files[file]
	}
	for i := range docs {
		if !docs[i].used && docs[i].kind == kind && docs[i].name == name {
			docs[i].used = true
			return docs[i].line
		}
	}
	if i := slices.IndexFunc(docs, func(d docStart) bool { return strings.HasSuffix(d.kind, "List") }); i >= 0 {
		return docs[i].line
	}
	return 0
}

// scanKindName reads the top-level kind and metadata.name of a block-style
// YAML document without a full parse (indexing 2,000 documents with
// sigs.k8s.io/yaml doubled the time of a manifest audit). ok is false when
// the document is written in another style; the caller then parses it.
func scanKindName(doc []byte) (kind, name string, ok bool) {
	inMeta, childIndent := false, -1
	for l := range strings.SplitSeq(string(doc), "\n") {
		t := strings.TrimLeft(l, " ")
		indent := len(l) - len(t)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if indent == 0 {
			inMeta = t == "metadata:"
			if v, found := strings.CutPrefix(t, "kind:"); found {
				kind = unquote(v)
			}
			continue
		}
		if inMeta && name == "" {
			if childIndent < 0 {
				childIndent = indent
			}
			if v, found := strings.CutPrefix(t, "name:"); found && indent == childIndent {
				name = unquote(v)
			}
		}
	}
	return kind, name, kind != "" && name != ""
}

func unquote(v string) string {
	v = strings.TrimSpace(v)
	if i := strings.Index(v, " #"); i >= 0 {
		v = strings.TrimSpace(v[:i])
	}
	return strings.Trim(v, `"'`)
}
