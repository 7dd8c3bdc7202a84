package termsafe

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// hostile holds every kind of unsafe text the cluster can hand us: CSI
// through ESC, a one-byte C1 CSI, a bidi override and isolate, DEL, a
// newline, a zero-width space and a rune above U+FFFF in the private use
// planes.
var hostile = "a\x1b[31mred\u009b2J\u202egnp.exe\u2066x\u2069\x7f\nline\u200bz\U000F0000"

type sample struct {
	Name   string            `json:"name"`
	Image  string            `json:"image"`
	Count  int               `json:"count"`
	Labels map[string]string `json:"labels"`
	Items  []string          `json:"items"`
	Empty  []string          `json:"empty"`
	Number string            `json:"number"`
}

func sampleValue() sample {
	return sample{Name: "web", Image: hostile, Count: 3, Labels: map[string]string{"app": "web", hostile: "v"},
		Items: []string{"one", hostile}, Empty: []string{}, Number: "123"}
}

// assertNoRawUnsafe fails when out holds a raw ESC, C1 control or any
// other unsafe rune except the newlines and spaces of the layout.
func assertNoRawUnsafe(t *testing.T, out []byte) {
	t.Helper()
	for i, r := range string(out) {
		if r != '\n' && Unsafe(r) {
			t.Fatalf("raw unsafe rune %U at byte %d of:\n%s", r, i, out)
		}
	}
}

func TestNewJSONEncoderEscapesAndRoundTrips(t *testing.T) {
	var buf bytes.Buffer
	enc := NewJSONEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(sampleValue()); err != nil {
		t.Fatal(err)
	}
	assertNoRawUnsafe(t, buf.Bytes())
	for _, esc := range []string{`\u009b`, `\u202e`, `\u2066`, `\u007f`, `\u200b`, `\udb80\udc00`} {
		if !strings.Contains(buf.String(), esc) {
			t.Errorf("JSON lacks %s:\n%s", esc, buf.String())
		}
	}
	var got sample
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Image != hostile || got.Items[1] != hostile || got.Labels[hostile] != "v" {
		t.Errorf("values changed: %+v", got)
	}
}

func TestMarshalYAMLEscapesAndRoundTrips(t *testing.T) {
	out, err := MarshalYAML(sampleValue())
	if err != nil {
		t.Fatal(err)
	}
	assertNoRawUnsafe(t, out)
	var got sample
	if err := yaml.UnmarshalStrict(out, &got); err != nil {
		t.Fatalf("%v in:\n%s", err, out)
	}
	if got.Image != hostile || got.Items[1] != hostile || got.Labels[hostile] != "v" || got.Number != "123" || got.Count != 3 {
		t.Errorf("values changed: %+v\n%s", got, out)
	}
}

// sigs.k8s.io/yaml fails on a C1 control (the fault MarshalYAML fixes);
// on safe text both give the same values, in the struct's field order here.
func TestMarshalYAMLMatchesSigsYAMLOnSafeText(t *testing.T) {
	if _, err := yaml.Marshal(map[string]string{"image": "x\u009by"}); err == nil {
		t.Log("sigs.k8s.io/yaml no longer fails on C1 controls")
	}
	v := sample{Name: "web", Image: "nginx:1.27", Count: 2, Labels: map[string]string{"b": "true", "a": "x y"},
		Items: []string{"one", "two: three"}, Empty: []string{}, Number: "0123"}
	want, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	got, err := MarshalYAML(v)
	if err != nil {
		t.Fatal(err)
	}
	var a, b any
	if err := yaml.Unmarshal(got, &a); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(want, &b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) || !strings.HasPrefix(string(got), "name: web\nimage: nginx:1.27\n") {
		t.Errorf("MarshalYAML:\n%s\nsigs.k8s.io/yaml:\n%s", got, want)
	}
}
