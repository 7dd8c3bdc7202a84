package termsafe

import (
	"encoding/json"
	"fmt"
	"io"
	"unicode/utf16"
	"unicode/utf8"
)

// EscapeJSON rewrites every unsafe rune (see Unsafe) at or above U+007F in
// JSON text as a \uXXXX escape (a surrogate pair above U+FFFF), so that the
// document decodes to the same values but shows no C1 control or
// bidirectional override on a terminal. encoding/json already escapes
// the C0 controls inside strings and leaves DEL, C1 and format characters
// raw; outside strings JSON has only ASCII, so the rewrite never changes
// the structure. Invalid UTF-8 is left to the encoder (it writes U+FFFD).
func EscapeJSON(data []byte) []byte {
	return escapeRunes(data, appendJSONEscape)
}

// escapeRunes copies data with every unsafe rune at or above U+007F
// written by esc; data is returned as is when it holds none. Bytes below
// U+007F are copied without decoding: the encoders escape C0 controls
// themselves.
func escapeRunes(data []byte, esc func([]byte, rune) []byte) []byte {
	var out []byte // nil until the first unsafe rune
	for i := 0; i < len(data); {
		r, size := rune(data[i]), 1
		if r >= 0x7f {
			r, size = utf8.DecodeRune(data[i:])
		}
		switch {
		case r >= 0x7f && Unsafe(r) && !(r == utf8.RuneError && size == 1):
			if out == nil {
				out = append(make([]byte, 0, len(data)+16), data[:i]...)
			}
			out = esc(out, r)
		case out != nil:
			out = append(out, data[i:i+size]...)
		}
		i += size
	}
	if out == nil {
		return data
	}
	return out
}

// appendJSONEscape writes r as \uXXXX, or a surrogate pair above U+FFFF.
func appendJSONEscape(out []byte, r rune) []byte {
	if r > 0xffff {
		hi, lo := utf16.EncodeRune(r)
		return fmt.Appendf(out, `\u%04x\u%04x`, hi, lo)
	}
	return fmt.Appendf(out, `\u%04x`, r)
}

// NewJSONEncoder returns a json.Encoder writing to w with EscapeJSON
// applied to each encoded value. Use it for every JSON the project prints.
func NewJSONEncoder(w io.Writer) *json.Encoder {
	return json.NewEncoder(jsonWriter{w})
}

// WriteJSON writes v to w as one JSON document indented by two blanks,
// escaped as NewJSONEncoder escapes it: the form of every -o json written
// once at the end (a drain's result, an audit, SARIF, the version). It
// returns the write error.
func WriteJSON(w io.Writer, v any) error {
	enc := NewJSONEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// jsonWriter escapes each Write: json.Encoder writes every encoded value in
// one call, so a rune is never split between two writes.
type jsonWriter struct{ w io.Writer }

func (j jsonWriter) Write(p []byte) (int, error) {
	if _, err := j.w.Write(EscapeJSON(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}
