package termsafe

import (
	"bytes"
	"testing"
)

func TestYAMLStreamWritesEachJSONValueAsADocument(t *testing.T) {
	var out bytes.Buffer
	s := YAMLStream(&out)
	var in bytes.Buffer
	enc := NewJSONEncoder(&in)
	_ = enc.Encode(map[string]any{"pod": "web\x1b[2J", "atMs": 12})
	_ = enc.Encode([]string{"b", "a"})
	data := in.Bytes()
	// A value split across writes, as a pipe may deliver it.
	for _, part := range [][]byte{data[:7], data[7:30], data[30:]} {
		if _, err := s.Write(part); err != nil {
			t.Fatal(err)
		}
	}
	want := "atMs: 12\npod: \"web\\e[2J\"\n---\n- b\n- a\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
	if _, err := s.Write([]byte("not json\n")); err == nil {
		t.Error("a write that is not JSON was accepted")
	}
}
